# boot-smt-llc - 2 sockets x 2 LLCs x 2 cores x 2 threads: the guest must
# build SMT, MC and DIE/NUMA levels with the siblings and LLCs we asked for.
. "$(dirname "$0")/lib.sh"
boot 2s4c2t,llc=2 --accel tcg
expect_pass
[ "$(json "$run/guest-topology.json" 'd["cpus"]')" = 16 ] || fail "guest has not 16 CPUs"
[ "$(json "$run/guest-topology.json" 'd["cpu"][5]["siblings"]')" = "4-5" ] || fail "cpu5 siblings"
[ "$(json "$run/guest-topology.json" 'd["cpu"][5]["llc"]')" = "4-7" ] || fail "cpu5 llc"
[ "$(json "$run/guest-topology.json" '" ".join(d["cpu"][0]["domains"])')" = "SMT MC DIE NUMA" ] || fail "cpu0 domains"
[ "$(json "$run/verdict.json" 'd["verdict"]')" = PASS ] || fail "verdict.json"
echo ok
