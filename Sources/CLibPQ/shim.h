// libpq's API (libpq-dev). Not linked: CLibPQLoader loads libpq when a server is first used and
// defines these functions, forwarding to it.
#include <postgresql/libpq-fe.h>
