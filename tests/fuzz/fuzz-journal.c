/* fuzz-journal.c - libFuzzer target for the bare-metal undo journal: any
 * text parses or gives one error line; what parses formats back to text
 * that parses to the same entries.  (Nothing is ever restored here.) */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/journal.h"
#include "lib/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct journal j, again;
	struct strbuf text = STRBUF_INIT;
	char err[256];

	if (journal_parse((const char *)data, size, &j, err, sizeof(err)) < 0) {
		if (!err[0] || strchr(err, '\n') || j.nr)
			abort();
		return 0;
	}
	strbuf_addstr(&text, JOURNAL_HEADER "\n");
	for (size_t i = 0; i < j.nr; i++) {
		size_t n = journal_format(j.e[i].op, j.e[i].pid, j.e[i].path, j.e[i].value, NULL, 0);
		char *line = malloc(n + 1);

		journal_format(j.e[i].op, j.e[i].pid, j.e[i].path, j.e[i].value, line, n + 1);
		strbuf_addstr(&text, line);
		free(line);
	}
	if (journal_parse(text.buf, text.len, &again, err, sizeof(err)) < 0 || again.nr != j.nr)
		abort();
	for (size_t i = 0; i < j.nr; i++)
		if (again.e[i].op != j.e[i].op || again.e[i].pid != j.e[i].pid ||
		    strcmp(again.e[i].path, j.e[i].path) || strcmp(again.e[i].value, j.e[i].value))
			abort();
	if (journal_pending(&j) > j.nr)
		abort();
	journal_release(&again);
	journal_release(&j);
	strbuf_release(&text);
	return 0;
}
