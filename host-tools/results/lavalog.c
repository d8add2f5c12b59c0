/* lavalog.c - LAVA's job log (a YAML list of {dt, lvl, msg}) through
 * Debian's libyaml, which LAVA itself writes the log with (PyYAML on it). */
#include "results/lavalog.h"

#include <string.h>
#include <strings.h>
#include <yaml.h>

static yaml_node_t *map_get(yaml_document_t *doc, yaml_node_t *map, const char *key)
{
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);

		if (k && k->type == YAML_SCALAR_NODE &&
		    k->data.scalar.length == strlen(key) &&
		    !memcmp(k->data.scalar.value, key, k->data.scalar.length))
			return yaml_document_get_node(doc, p->value);
	}
	return NULL;
}

static const char *scalar(yaml_node_t *n, size_t *len)
{
	if (!n || n->type != YAML_SCALAR_NODE)
		return NULL;
	if (len)
		*len = n->data.scalar.length;
	return (const char *)n->data.scalar.value;
}

long lava_log_parse(const char *text, size_t len, lava_entry_fn fn, void *ctx,
		    struct strbuf *err)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	long nr = 0;

	if (!yaml_parser_initialize(&parser)) {
		strbuf_addstr(err, "out of memory");
		return -1;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		strbuf_addf(err, "not YAML: %s at line %lu", parser.problem ? parser.problem : "error",
			    (unsigned long)parser.problem_mark.line + 1);
		yaml_parser_delete(&parser);
		return -1;
	}
	root = yaml_document_get_root_node(&doc);
	if (!root) {
		/* an empty log: a job that never started */
		yaml_document_delete(&doc);
		yaml_parser_delete(&parser);
		return 0;
	}
	if (root->type != YAML_SEQUENCE_NODE) {
		strbuf_addstr(err, "not a LAVA job log: the top level is not a list");
		nr = -1;
		goto out;
	}
	for (yaml_node_item_t *it = root->data.sequence.items.start;
	     it < root->data.sequence.items.top; it++) {
		yaml_node_t *n = yaml_document_get_node(&doc, *it), *msg;
		struct lava_entry e = { 0 };

		if (!n || n->type != YAML_MAPPING_NODE ||
		    !(e.lvl = scalar(map_get(&doc, n, "lvl"), NULL))) {
			strbuf_addf(err, "not a LAVA job log: entry %ld is not a mapping with a lvl",
				    nr + 1);
			nr = -1;
			goto out;
		}
		e.dt = scalar(map_get(&doc, n, "dt"), NULL);
		msg = map_get(&doc, n, "msg");
		e.msg = scalar(msg, &e.msg_len);
		if (msg && msg->type == YAML_MAPPING_NODE) {
			e.error_type = scalar(map_get(&doc, msg, "error_type"), NULL);
			e.error_msg = scalar(map_get(&doc, msg, "error_msg"), NULL);
		}
		fn(&e, ctx);
		nr++;
	}
out:
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return nr;
}

/*
 * LAVA 2023.01's job health is Complete, Incomplete or Canceled once the
 * job ended; an Incomplete job's results name an error type: Infrastructure,
 * Configuration, Bug (LAVA's own fault: the kernel never had its chance)
 * or Job, Test, LAVATimeout (what ran on the device failed or timed out).
 * A job lab lava follow canceled because no usable device of its type
 * was left (all Bad, Maintenance or Retired) is Canceled with the error
 * type Infrastructure: the farm failed it, not whoever canceled.
 */
static const struct lava_health_map lava_health_table[] = {
	{ "Complete", NULL, 1, "PASS", NULL },
	{ "Incomplete", "Infrastructure", 0, "FAIL", "LAVA infrastructure error" },
	{ "Incomplete", "Configuration", 0, "FAIL", "LAVA configuration error" },
	{ "Incomplete", "Bug", 0, "FAIL", "LAVA bug" },
	{ "Incomplete", NULL, 0, "HANG", "LAVA job incomplete" },
	{ "Canceled", "Infrastructure", 0, "FAIL", "LAVA infrastructure error" },
	{ "Canceled", NULL, 0, "STOPPED", "LAVA job canceled" },
};

const struct lava_health_map *lava_health_lookup(const char *health, const char *error_type)
{
	for (size_t i = 0; i < sizeof(lava_health_table) / sizeof(lava_health_table[0]); i++) {
		const struct lava_health_map *m = &lava_health_table[i];

		if (!health || strcasecmp(health, m->health))
			continue;
		if (m->error_type && (!error_type || strcasecmp(error_type, m->error_type)))
			continue;
		return m;
	}
	return NULL;
}
