/* cpu-online.h - the runner's stand-in for udev for CPUs: hears the kernel's
 * uevent when a CPU is hot-added and brings it online. */
#ifndef RUNNER_CPU_ONLINE_H
#define RUNNER_CPU_ONLINE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stddef.h>

/* A NETLINK_KOBJECT_UEVENT socket (non-blocking) for a poll set; -1 with
 * errno when the kernel has none. */
int cpu_uevent_open(void);

/*
 * Parses one uevent datagram ("add@/devices/system/cpu/cpu4\0ACTION=add\0
 * DEVPATH=...\0SUBSYSTEM=cpu\0...").  Returns 1 with *cpu set when it is
 * a CPU being added, 0 for any other event, -1 when it is malformed.
 */
int cpu_uevent_parse(const char *msg, size_t len, unsigned *cpu);

/* Reads every pending datagram; the CPUs added are put into *added.
 * Returns how many were added. */
int cpu_uevent_drain(int fd, cpu_set_t *added);

/* The CPUs the kernel has (present), online or not. */
int cpu_present_now(cpu_set_t *set);

/* Notes which CPUs are present but offline when the runner begins (a
 * maxcpus= boot, say): those are left alone.  Call once, before forking. */
void cpu_note_boot(void);
const cpu_set_t *cpu_boot_offline(void);

/*
 * The present, offline CPUs the runner did not find offline at boot:
 * hot-added CPUs whose uevent came before anyone listened.  Puts them
 * into *todo and returns how many there are.
 */
int cpu_sweep(cpu_set_t *todo);

/* Writes 1 to cpuN/online; 0 also when it was online already.  -1 with
 * the reason in err. */
int cpu_bring_online(unsigned cpu, char *err, size_t len);

/*
 * What the kernel made of a CPU: its package, node, LLC siblings and
 * scheduling-domain names, as JSON members (", \"package\": 0, ...")
 * appended to buf.
 */
void cpu_place_json(unsigned cpu, char *buf, size_t len);

#endif
