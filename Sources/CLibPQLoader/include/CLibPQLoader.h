// Loads libpq when it is first needed (see CLibPQLoader.c).
#include <postgresql/libpq-fe.h>
#include <stddef.h>

/// Loads libpq (libpq.so.5) and finds its functions, once; every other call of this module
/// needs it done. Returns 1 when libpq is there; otherwise 0, with the reason in `error`.
int cpq_load(char *error, size_t size);

/// Starts loading libpq on a thread of its own, for a program about to connect: `cpq_load`
/// then waits only for what is left of it. Nothing when it is loaded, being loaded, or a
/// thread cannot be started (`cpq_load` then loads it itself).
void cpq_load_in_background(void);

/// Whether the loaded libpq has pipeline mode (libpq 14 and later): 1 or 0.
int cpq_has_pipeline_mode(void);
