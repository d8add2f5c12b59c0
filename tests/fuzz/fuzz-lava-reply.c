/* fuzz-lava-reply.c - libFuzzer target for the readers of a LAVA server's
 * replies (host-tools/lava/client.c): a job, a submit reply, an error body,
 * a page of devices and the reason made of it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lava/client.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT, msg = STRBUF_INIT;
	struct lava_devices devs = { NULL, 0, 0 };
	struct lava_job job;
	long id = 0;
	int more;

	if (lava_parse_job((const char *)data, size, &job, &err) == 0) {
		if (!memchr(job.state, '\0', sizeof(job.state)) || !memchr(job.health, '\0', sizeof(job.health)) ||
		    !memchr(job.device, '\0', sizeof(job.device)) ||
		    !memchr(job.failure_comment, '\0', sizeof(job.failure_comment)))
			abort();
	} else if (!err.len || memchr(err.buf, '\n', err.len)) {
		abort();
	}
	strbuf_reset(&err);
	if (lava_parse_submit((const char *)data, size, &id, &err) == 0 ? id <= 0 : !err.len)
		abort();
	lava_error_message((const char *)data, size, &msg);
	/* one printable line of at most 300 bytes */
	if (!msg.len || msg.len > 300)
		abort();
	for (size_t i = 0; i < msg.len; i++)
		if ((unsigned char)msg.buf[i] < 0x20 || msg.buf[i] == 0x7f)
			abort();
	strbuf_reset(&err);
	strbuf_reset(&msg);
	if (lava_parse_devices((const char *)data, size, &devs, &more, &err) == 0) {
		for (size_t i = 0; i < devs.nr; i++) {
			if (!memchr(devs.v[i].hostname, '\0', sizeof(devs.v[i].hostname)) ||
			    !memchr(devs.v[i].health, '\0', sizeof(devs.v[i].health)) || devs.v[i].health_job < 0)
				abort();
			if (i % 2)
				snprintf(devs.v[i].note, sizeof(devs.v[i].note), "%s", devs.v[i].hostname);
			(void)lava_device_usable(&devs.v[i]);
		}
		/* the reason: at most its room, one line */
		lava_devices_describe(&devs, "qemu", 250, &msg);
		if (msg.len > 250 || memchr(msg.buf, '\n', msg.len))
			abort();
	} else if (!err.len || memchr(err.buf, '\n', err.len) || devs.nr) {
		abort();
	}
	lava_devices_release(&devs);
	strbuf_release(&err);
	strbuf_release(&msg);
	return 0;
}
