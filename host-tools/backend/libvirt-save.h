/* libvirt-save.h - warm start under libvirt: the saved domain XML rewritten
 * for the run that restores it (virDomainRestoreFlags' dxml). */
#ifndef LAB_LIBVIRT_SAVE_H
#define LAB_LIBVIRT_SAVE_H

#include "lib/util.h"

/* The namespace of the lab's element in a restored domain's <metadata>. */
#define LV_META_NS "https://schedlab.invalid/warm"

/* Where a restoring run's QEMU finds its files: the run's private directory. */
struct lv_restore_paths {
	const char *kernel, *initrd;
	const char *console, *records;   /* unix sockets for ttyS0 and ttyS1 */
	long owner_pid;                  /* the lab that owns the restored domain */
};

/*
 * The XML libvirt stored in a save image (virDomainSaveImageGetXMLDesc),
 * made fit for restoring in this run: <os><kernel> and <initrd>, the
 * source paths of serial ports 0 and 1 and of the console (ttyS0), and a
 * <metadata> element naming the owning lab's pid (a restored domain cannot
 * be AUTODESTROY: a lab killed before it ends the domain leaves it to the
 * next lab's sweep).  Name and uuid stay: libvirt's ABI check refuses a
 * restore that changes them.  Returns the new XML (caller frees) or NULL
 * with one line in err: saved is not a domain with both serial ports.
 */
char *lv_restore_xml(const char *saved, size_t len, const struct lv_restore_paths *paths,
		     struct strbuf *err);

/* The owner pid in a domain's lab metadata: the element virDomainGetMetadata
 * returns for LV_META_NS (<run pid='N'/>, the namespace left out), or the
 * element with it; 0 when text is not one. */
long lv_meta_owner(const char *text);

/* The <name> of a domain XML (caller frees), or NULL. */
char *lv_domain_name(const char *xml, size_t len);

#endif
