/* hostfault-guest.c - host faults on the whole guest: pause (QMP stop,
 * cont after hold) and an NMI to every vCPU. */
#include "fault/hostfault.h"
#include "backend/backend.h"

static int pause_act(struct hostfault *h, struct backend *b, const struct plan_fault *f,
		     struct strbuf *detail, struct strbuf *err)
{
	if (b->ops->qmp(b, "stop", NULL, NULL, err) < 0)
		return -1;
	h->paused = 1;
	return 0;
}

static int pause_undo(struct hostfault *h, struct backend *b, const struct plan_fault *f,
		      struct strbuf *detail, struct strbuf *err)
{
	if (b->ops->qmp(b, "cont", NULL, NULL, err) < 0)
		return -1;
	h->paused = 0;
	return 0;
}

const struct hostfault_ops hostfault_kind_pause = {
	.name = "pause",
	.description = "stops the whole guest (QMP stop), resumes it after hold",
	.action = "stop",
	.undo_action = "cont",
	.default_hold_ms = 1000,
	.act = pause_act,
	.undo = pause_undo,
};

static int nmi_act(struct hostfault *h, struct backend *b, const struct plan_fault *f,
		   struct strbuf *detail, struct strbuf *err)
{
	return b->ops->nmi(b, err);
}

const struct hostfault_ops hostfault_kind_nmi = {
	.name = "nmi",
	.description = "injects an NMI into every vCPU",
	.action = "nmi",
	.default_hold_ms = 1000,
	.raises_nmi = 1,
	.act = nmi_act,
};
