# boot-2s64c - the issue's headline machine: 2 sockets x 64 cores, 8 LLCs
# per socket, 128 vCPUs under TCG, verified CPU by CPU.
. "$(dirname "$0")/lib.sh"
boot 2s64c --accel tcg
expect_pass
[ "$(json "$run/guest-topology.json" 'd["cpus"]')" = 128 ] || fail "guest has not 128 CPUs"
[ "$(json "$run/guest-topology.json" 'd["cpu"][127]["llc"]')" = "120-127" ] || fail "cpu127 llc"
echo ok
