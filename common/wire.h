/* wire.h - the framed record format that carries results from the runner
 * (guest or bare metal) to the host; one definition compiled into both. */
#ifndef LAB_WIRE_H
#define LAB_WIRE_H

#include <stddef.h>
#include <stdint.h>

/*
 * A frame is a 20-byte little-endian header followed by `len` payload bytes:
 *
 *   0  magic   "SLR1"
 *   4  seq     u32, 0 for the first record of a stream, +1 per record
 *   8  type    u16, enum wire_type
 *  10  flags   u16, 0 (reserved; a decoder rejects other values)
 *  12  len     u32, <= WIRE_MAX_PAYLOAD
 *  16  crc     u32, CRC-32 (IEEE 802.3, as zlib's crc32) of bytes 0..15
 *              followed by the payload
 *
 * Payloads are text (UTF-8, no NUL), so a raw stream stays greppable,
 * with one exception: WIRE_TRACE carries one text header line and then
 * binary bytes (ftrace ring-buffer pages).  They travel as they are, not
 * base64: the frame's length and CRC already make any byte safe, and the
 * serial line is the bottleneck of a traced run (base64 costs a third more).
 * The runner ends every stream with WIRE_END whose payload is the decimal
 * number of records it sent before it; the host reports the sequence
 * numbers it never received, instead of silently dropping them.
 */
#define WIRE_MAGIC "SLR1"
#define WIRE_HDR_LEN 20u
#define WIRE_MAX_PAYLOAD (1u << 20)

enum wire_type {
	WIRE_HELLO = 1,   /* runner started: "version=..\nuname=..\ncmdline=..\n" */
	WIRE_SYSFS = 2,   /* snapshot: "path=value\n" lines (value on one line) */
	WIRE_LOG = 3,     /* free text from the runner, one message */
	WIRE_RESULT = 4,  /* a scenario's result, JSON text */
	WIRE_EVENT = 5,   /* timestamped event (fault, phase), JSON text */
	WIRE_END = 6,     /* stream complete: decimal count of earlier records */
	WIRE_COUNTERS = 7, /* raw kernel counters: "<case>\t<before|after>\t<source>\n<text>";
			    * source fprof: phase "run<N>", guest/runner/fprof.h */
	WIRE_TRACE = 8,    /* sched tracing: "<case>\t<run>\t<kind>\t<name>\n" then raw
			    * bytes; kinds: format (case "", run "-": a tracefs
			    * format file, header_page, page_size), cpu (per-CPU
			    * trace_pipe_raw pages, several records append), stats
			    * (per_cpu/cpuN/stats), done (run complete), absent
			    * (run "-": why nothing is traced); guest/runner/schedtrace.h */
	WIRE_PLAN = 9,     /* host to a parked runner (warm start): "seed=<hex>\n
			    * realtime=<s>.<ns>\n", optionally "sched_feat=<list>\n"
			    * and "sched_knob=<list>\n", "\n", then the compiled plan */
	WIRE_TYPE_MAX,
};

/* The WIRE_LOG a parked runner sends last before it waits for WIRE_PLAN. */
#define WIRE_LOG_PARKED "parked: waiting for a plan"
/* The fw_cfg file (QEMU -fw_cfg name=...) a restored guest finds its
 * WIRE_PLAN frame in, instead of on the record channel. */
#define WIRE_FWCFG_PLAN "opt/schedlab/plan"
/* The WIRE_PLAN header's optional lines: what a warm guest sets after its
 * restore (lab run --sched-feat, --sched-knob), "KEY=<list>\n" */
#define WIRE_PLAN_SCHED_FEAT "sched_feat"
#define WIRE_PLAN_SCHED_KNOB "sched_knob"
/* The WIRE_LOG a parked runner sends before WIRE_LOG_PARKED when it
 * cannot read fw_cfg (no ioperm under lockdown, no fw_cfg device): a
 * restore of it must send the plan on the record channel. */
#define WIRE_LOG_NO_FWCFG "parked: fw_cfg unreadable, the plan must come on the record channel"
/* How often a parked runner looks for it, in milliseconds. */
#define WIRE_FWCFG_POLL_MS 1

const char *wire_type_name(unsigned type);

uint32_t wire_crc32(uint32_t crc, const void *buf, size_t len);

/* Encodes one frame into out (at least WIRE_HDR_LEN + len bytes).
 * Returns the frame length, or 0 when len is too big or out too small. */
size_t wire_encode(uint32_t seq, uint16_t type, const void *payload,
		   uint32_t len, void *out, size_t outlen);

struct wire_record {
	uint32_t seq;
	uint16_t type;
	uint32_t len;
	const char *payload; /* valid only during the callback; not NUL-terminated */
};

/* Called once per intact frame, in stream order.  A non-zero return stops
 * wire_decoder_feed() early (it returns the bytes consumed so far). */
typedef int (*wire_record_fn)(const struct wire_record *rec, void *ctx);

/*
 * Streaming decoder.  Bytes arrive in arbitrary chunks; garbage between
 * frames (console noise, a corrupted header) is skipped by searching for
 * the next magic, and counted.  wire_decoder_release() frees the buffer.
 */
struct wire_decoder {
	uint8_t *buf;
	size_t len, alloc;
	uint32_t next_seq;      /* sequence number expected next */
	uint64_t records;       /* intact frames delivered */
	uint64_t bad_crc;       /* frames dropped for a CRC mismatch */
	uint64_t bad_header;    /* magic found but header invalid */
	uint64_t skipped_bytes; /* bytes that belonged to no intact frame */
	uint64_t missing;       /* sequence numbers never delivered (gaps) */
	int ended;              /* WIRE_END seen */
	uint32_t end_count;     /* its announced count */
};
#define WIRE_DECODER_INIT { 0 }
void wire_decoder_init(struct wire_decoder *d);
size_t wire_decoder_feed(struct wire_decoder *d, const void *data, size_t len,
			 wire_record_fn fn, void *ctx);
/* At end of stream: bytes still buffered are a truncated frame.  Returns
 * 0 when the stream was complete (END seen, its count matched, nothing
 * missing or corrupted) and -1 otherwise; the counters say what was wrong. */
int wire_decoder_finish(struct wire_decoder *d);
void wire_decoder_release(struct wire_decoder *d);

#endif
