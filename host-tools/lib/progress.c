/* progress.c - progress with an ETA for batches of guest boots: the ETA
 * comes from the durations of the boots that already finished. */
#include "lib/progress.h"
#include "lib/util.h"

#include <stdio.h>
#include <unistd.h>

double progress_eta_s(unsigned done, double done_sum_s, unsigned left,
		      const double *running_elapsed_s, unsigned nr_running, unsigned parallel)
{
	double mean, work = 0;
	unsigned slots;

	if (!left)
		return 0;
	if (!done)
		return -1;
	mean = done_sum_s / done;
	for (unsigned i = 0; i < left; i++) {
		double spent = i < nr_running ? running_elapsed_s[i] : 0;

		/* a boot that runs longer than the mean still has some left:
		 * call it a tenth of the mean rather than nothing */
		work += spent < mean ? mean - spent : mean / 10;
	}
	slots = parallel ? parallel : 1;
	if (slots > left)
		slots = left;
	return work / slots;
}

void progress_format_duration(char *buf, size_t size, double seconds)
{
	unsigned long s = seconds > 0 ? (unsigned long)(seconds + 0.5) : 0;

	if (s < 60)
		snprintf(buf, size, "%lus", s);
	else if (s < 600)
		snprintf(buf, size, "%lum%02lus", s / 60, s % 60);
	else if (s < 3600)
		snprintf(buf, size, "%lum", (s + 30) / 60);
	else
		snprintf(buf, size, "%luh%02lum", s / 3600, (s % 3600) / 60);
}

void progress_init(struct progress *p, const char *what, unsigned total, unsigned parallel)
{
	p->what = what;
	p->total = total;
	p->done = p->timed = 0;
	p->parallel = parallel ? parallel : 1;
	p->done_sum_s = 0;
	p->t0_ns = now_ns();
	p->tty = isatty(STDERR_FILENO);
	p->open_line = 0;
}

void progress_item_done(struct progress *p, double seconds)
{
	p->done++;
	p->timed++;
	p->done_sum_s += seconds;
}

void progress_item_skipped(struct progress *p)
{
	p->done++;
}

void progress_show(struct progress *p, const char *detail, const double *running_elapsed_s,
		   unsigned nr_running)
{
	progress_show_eta(p, detail, progress_eta_s(p->timed, p->done_sum_s, p->total - p->done,
						    running_elapsed_s, nr_running, p->parallel));
}

void progress_show_eta(struct progress *p, const char *detail, double eta_s)
{
	char el[32], eta[32];

	progress_format_duration(el, sizeof(el), (double)(now_ns() - p->t0_ns) / 1e9);
	if (eta_s < 0)
		snprintf(eta, sizeof(eta), "unknown");
	else
		progress_format_duration(eta, sizeof(eta), eta_s);
	if (p->tty)
		fprintf(stderr, "\r\033[K%s: %s ... elapsed %s, ETA %s", p->what, detail, el, eta);
	else
		fprintf(stderr, "%s: %s ... elapsed %s, ETA %s\n", p->what, detail, el, eta);
	p->open_line = p->tty;
	fflush(stderr);
}

void progress_break(struct progress *p)
{
	if (p->open_line)
		fputc('\n', stderr);
	p->open_line = 0;
	fflush(stderr);
}
