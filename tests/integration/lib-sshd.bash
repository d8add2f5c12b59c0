# lib-sshd.bash - sourced (after lib.sh) by tests that need a "remote" libvirt URI: starts a
# private sshd on 127.0.0.1 (own config, host key, authorized key and pid
# file under $TMP; nothing in /etc/ssh or ~/.ssh changes), and sets
# SSH_URI to a qemu+ssh:// URI that reaches this machine's libvirtd
# through it.  ssh_stop (called from the caller's EXIT trap) ends it.
# SKIPs with the reason when sshd cannot be started.

SSHD_PID=
ssh_stop() {
	[ -n "$SSHD_PID" ] && kill "$SSHD_PID" 2>/dev/null
	SSHD_PID=
	return 0
}

# free_port: a TCP port nothing listens on, from the ephemeral range's edge.
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

ssh_start() {
	local d=$TMP/ssh port i
	[ "$(id -u)" = 0 ] || skip "the ssh URI test needs root (sshd, root's libvirtd)"
	[ -x /usr/sbin/sshd ] || skip "sshd is not installed (openssh-server)"
	command -v ssh >/dev/null || skip "ssh is not installed (openssh-client)"
	command -v virt-ssh-helper >/dev/null || skip "virt-ssh-helper is not installed (libvirt-clients)"
	mkdir -p "$d" /run/sshd
	chmod 700 "$d"
	ssh-keygen -q -t ed25519 -N '' -f "$d/host_key" || skip "ssh-keygen failed"
	ssh-keygen -q -t ed25519 -N '' -f "$d/id" || skip "ssh-keygen failed"
	cp "$d/id.pub" "$d/authorized_keys"
	port=$(free_port)
	cat >"$d/sshd_config" <<CFG
ListenAddress 127.0.0.1
Port $port
HostKey $d/host_key
PidFile $d/sshd.pid
AuthorizedKeysFile $d/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
StrictModes no
UsePAM no
CFG
	/usr/sbin/sshd -f "$d/sshd_config" -E "$d/sshd.log" ||
		skip "sshd cannot start: $(tail -n1 "$d/sshd.log" 2>/dev/null)"
	for i in $(seq 50); do
		[ -s "$d/sshd.pid" ] && break
		sleep 0.1
	done
	SSHD_PID=$(cat "$d/sshd.pid" 2>/dev/null)
	[ -n "$SSHD_PID" ] || skip "sshd did not write its pid file: $(tail -n1 "$d/sshd.log")"
	# root's known_hosts stays untouched: the client ignores it
	printf '#!/bin/sh\nexec ssh -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR "$@"\n' >"$d/ssh"
	chmod 755 "$d/ssh"
	SSH_URI="qemu+ssh://root@127.0.0.1:$port/system?keyfile=$d/id&no_verify=1&no_tty=1&command=$d/ssh"
	echo "sshd on 127.0.0.1:$port (pid $SSHD_PID); URI $SSH_URI"
}

# The hypervisor side of the URI is this machine's libvirtd: started here
# (as the lab does for qemu:///system) when it is not running, and stopped
# again by libvirtd_down when this test started it and no domain is left.
LV_STARTED=
sock_alive() {
	python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])' "$1" 2>/dev/null
}
libvirtd_up() {
	local i
	command -v libvirtd >/dev/null || skip "libvirtd is not installed (libvirt-daemon-system)"
	sock_alive /run/libvirt/virtlogd-sock || { virtlogd -d && LV_STARTED="$LV_STARTED virtlogd"; }
	sock_alive /run/libvirt/libvirt-sock || { libvirtd -d && LV_STARTED="$LV_STARTED libvirtd"; }
	for i in $(seq 60); do
		sock_alive /run/libvirt/libvirt-sock && return 0
		sleep 0.5
	done
	skip "libvirtd did not start"
}
libvirtd_down() {
	local d n
	[ -n "$LV_STARTED" ] || return 0
	n=$(virsh -c qemu:///system list --name 2>/dev/null | grep -c . || true)
	[ "${n:-0}" -eq 0 ] || return 0
	for d in $LV_STARTED; do
		[ -s /run/$d.pid ] && kill "$(cat /run/$d.pid)" 2>/dev/null
	done
	LV_STARTED=
	return 0
}
