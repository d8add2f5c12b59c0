/* results.h - the results/ tree: one directory per run, created only once
 * every input was validated, never shared between two labs. */
#ifndef LAB_RESULTS_H
#define LAB_RESULTS_H

#include "lib/util.h"

struct json_object;

/* $LAB_RESULTS, else <lab_root()>/results. */
const char *results_root(void);

/*
 * Creates <root>/<UTC date-time>-<label>-<pid>[-N] with mkdir (not -p for
 * the last component, so two labs never get the same directory) and puts
 * its path in dir.  label is reduced to [A-Za-z0-9._-].
 */
int results_create_run(const char *root, const char *label, struct strbuf *dir);

/* Writes obj as pretty JSON to <dir>/<name>, atomically. */
int results_write_json(const char *dir, const char *name, struct json_object *obj);

/* Host facts for run.json: hostname, kernel, CPUs, memory. */
struct json_object *results_host_info(void);

#endif
