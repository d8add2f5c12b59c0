# boot-nps2 - 2 sockets with 2 NUMA nodes each (AMD NPS2-like): 4 nodes,
# same-socket distance 12, remote 20, a NODE level the kernel keeps.
. "$(dirname "$0")/lib.sh"
boot 2s8c,llc=2,nps=2,mem=512M --accel tcg
expect_pass
[ "$(json "$run/guest-topology.json" 'len(d["nodes"])')" = 4 ] || fail "not 4 nodes"
[ "$(json "$run/guest-topology.json" 'd["distances"][0]')" = "[10, 12, 20, 20]" ] || fail "distances"
[ "$(json "$run/guest-topology.json" 'd["nodes"][1]["cpus"]')" = "4-7" ] || fail "node1 cpus"
echo ok
