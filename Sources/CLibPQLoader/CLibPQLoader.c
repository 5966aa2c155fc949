// libpq, loaded when a catalog on a server is first used rather than at every start: with
// what it links (TLS, Kerberos, LDAP, some twenty libraries) binding its symbols would cost
// every `catalog` process more than the rest of its start, and most never talk to a server.
//
// It is loaded with RTLD_DEEPBIND: each of those libraries' thousands of symbol references is
// looked up in libpq's own libraries first, rather than first in the program and each library
// it was linked with. Nothing is bound differently: the program exports no symbol, and libc,
// the one library both have, is the same copy either way. And with RTLD_LAZY: a library built
// to bind its functions as they are first called (Kerberos's, which only some logins use)
// keeps doing so, as when a program that links libpq starts; libpq, OpenSSL and LDAP are built
// to bind theirs at load, which they still do. Every function called here is found with dlsym
// before the first call, and its absence said.
//
// A program that knows early that it will connect can start the loading on a thread of its
// own (cpq_load_in_background); whoever calls cpq_load first waits for it to end, once.
//
// Each libpq function the package calls is defined here under its own name and forwards to the
// function found in the loaded library, so that the Swift layer calls libpq's API as declared.

#define _GNU_SOURCE  // RTLD_DEEPBIND

#include "CLibPQLoader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static void *library;
static char failure[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

#define CPQ_FUNCTIONS(X)                                                                        \
  X(void, PQclear, (PGresult * res), (res))                                                     \
  X(char *, PQcmdTuples, (PGresult * res), (res))                                               \
  X(PostgresPollingStatusType, PQconnectPoll, (PGconn * conn), (conn))                          \
  X(PGconn *, PQconnectdbParams,                                                                \
    (const char *const *keywords, const char *const *values, int expand_dbname),               \
    (keywords, values, expand_dbname))                                                          \
  X(PGconn *, PQconnectStartParams,                                                             \
    (const char *const *keywords, const char *const *values, int expand_dbname),               \
    (keywords, values, expand_dbname))                                                          \
  X(void, PQconninfoFree, (PQconninfoOption * options), (options))                              \
  X(PQconninfoOption *, PQconninfoParse, (const char *conninfo, char **errmsg),                 \
    (conninfo, errmsg))                                                                         \
  X(int, PQconsumeInput, (PGconn * conn), (conn))                                               \
  X(char *, PQerrorMessage, (const PGconn *conn), (conn))                                       \
  X(PGresult *, PQexec, (PGconn * conn, const char *query), (conn, query))                      \
  X(PGresult *, PQexecParams,                                                                   \
    (PGconn * conn, const char *command, int nParams, const Oid *paramTypes,                    \
     const char *const *paramValues, const int *paramLengths, const int *paramFormats,          \
     int resultFormat),                                                                         \
    (conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat)) \
  X(void, PQfinish, (PGconn * conn), (conn))                                                    \
  X(void, PQfreemem, (void *ptr), (ptr))                                                        \
  X(PGresult *, PQgetResult, (PGconn * conn), (conn))                                           \
  X(int, PQgetisnull, (const PGresult *res, int tup_num, int field_num),                        \
    (res, tup_num, field_num))                                                                  \
  X(int, PQgetlength, (const PGresult *res, int tup_num, int field_num),                        \
    (res, tup_num, field_num))                                                                  \
  X(char *, PQgetvalue, (const PGresult *res, int tup_num, int field_num),                      \
    (res, tup_num, field_num))                                                                  \
  X(int, PQnfields, (const PGresult *res), (res))                                               \
  X(PGnotify *, PQnotifies, (PGconn * conn), (conn))                                            \
  X(int, PQntuples, (const PGresult *res), (res))                                               \
  X(int, PQputCopyData, (PGconn * conn, const char *buffer, int nbytes), (conn, buffer, nbytes)) \
  X(int, PQputCopyEnd, (PGconn * conn, const char *errormsg), (conn, errormsg))                 \
  X(void, PQreset, (PGconn * conn), (conn))                                                     \
  X(char *, PQresultErrorField, (const PGresult *res, int fieldcode), (res, fieldcode))         \
  X(char *, PQresultErrorMessage, (const PGresult *res), (res))                                 \
  X(ExecStatusType, PQresultStatus, (const PGresult *res), (res))                               \
  X(int, PQserverVersion, (const PGconn *conn), (conn))                                         \
  X(PQnoticeProcessor, PQsetNoticeProcessor,                                                    \
    (PGconn * conn, PQnoticeProcessor proc, void *arg), (conn, proc, arg))                      \
  X(int, PQsocket, (const PGconn *conn), (conn))                                                \
  X(ConnStatusType, PQstatus, (const PGconn *conn), (conn))

// Functions an older libpq lacks (pipeline mode: libpq 14), which the package does without:
// each answers `absent` when the library has none.
#define CPQ_OPTIONAL_FUNCTIONS(X)                                                             \
  X(int, PQenterPipelineMode, (PGconn * conn), (conn), 0)                                     \
  X(int, PQexitPipelineMode, (PGconn * conn), (conn), 0)                                      \
  X(int, PQpipelineSync, (PGconn * conn), (conn), 0)                                          \
  X(int, PQsendPrepare,                                                                       \
    (PGconn * conn, const char *stmtName, const char *query, int nParams, const Oid *paramTypes), \
    (conn, stmtName, query, nParams, paramTypes), 0)                                           \
  X(int, PQsendQueryPrepared,                                                                 \
    (PGconn * conn, const char *stmtName, int nParams, const char *const *paramValues,        \
     const int *paramLengths, const int *paramFormats, int resultFormat),                     \
    (conn, stmtName, nParams, paramValues, paramLengths, paramFormats, resultFormat), 0)       \
  X(int, PQsendQueryParams,                                                                   \
    (PGconn * conn, const char *command, int nParams, const Oid *paramTypes,                  \
     const char *const *paramValues, const int *paramLengths, const int *paramFormats,        \
     int resultFormat),                                                                       \
    (conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat), \
    0)

// The functions found in the library.
#define CPQ_POINTER(result, name, parameters, arguments) static result(*loaded_##name) parameters;
CPQ_FUNCTIONS(CPQ_POINTER)
#define CPQ_OPTIONAL_POINTER(result, name, parameters, arguments, absent) \
  static result(*loaded_##name) parameters;
CPQ_OPTIONAL_FUNCTIONS(CPQ_OPTIONAL_POINTER)

static void load(void) {
  library = dlopen("libpq.so.5", RTLD_LAZY | RTLD_LOCAL | RTLD_DEEPBIND);
  if (!library) {
    snprintf(failure, sizeof failure, "%s", dlerror());
    return;
  }
#define CPQ_FIND(result, name, parameters, arguments)                                    \
  loaded_##name = (result(*) parameters)dlsym(library, #name);                           \
  if (!loaded_##name) {                                                                  \
    snprintf(failure, sizeof failure, "libpq.so.5 has no function %s", #name);           \
    library = NULL;                                                                      \
    return;                                                                              \
  }
  CPQ_FUNCTIONS(CPQ_FIND)
#define CPQ_FIND_OPTIONAL(result, name, parameters, arguments, absent) \
  loaded_##name = (result(*) parameters)dlsym(library, #name);
  CPQ_OPTIONAL_FUNCTIONS(CPQ_FIND_OPTIONAL)
}

int cpq_has_pipeline_mode(void) {
  return loaded_PQenterPipelineMode && loaded_PQexitPipelineMode && loaded_PQpipelineSync
    && loaded_PQsendQueryParams && loaded_PQsendPrepare && loaded_PQsendQueryPrepared;
}

static void *load_on_thread(void *unused) {
  (void)unused;
  pthread_once(&once, load);
  return NULL;
}

static void start_loading(void) {
  pthread_attr_t detached;
  if (pthread_attr_init(&detached) != 0) return;
  pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED);
  pthread_t thread;
  pthread_create(&thread, &detached, load_on_thread, NULL);
  pthread_attr_destroy(&detached);
}

void cpq_load_in_background(void) {
  static pthread_once_t started = PTHREAD_ONCE_INIT;
  pthread_once(&started, start_loading);
}

int cpq_load(char *error, size_t size) {
  pthread_once(&once, load);
  if (library) return 1;
  if (error && size > 0) snprintf(error, size, "%s", failure);
  return 0;
}

// libpq's functions, forwarding to the library; only ever called after cpq_load succeeded.
#define CPQ_FORWARD(result, name, parameters, arguments) \
  result name parameters { return loaded_##name arguments; }
CPQ_FUNCTIONS(CPQ_FORWARD)
#define CPQ_FORWARD_OPTIONAL(result, name, parameters, arguments, absent) \
  result name parameters { return loaded_##name ? loaded_##name arguments : absent; }
CPQ_OPTIONAL_FUNCTIONS(CPQ_FORWARD_OPTIONAL)
