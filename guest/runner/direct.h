/* direct.h - one workload run from the command line, outside any plan:
 * `runner --workload hackbench --set groups=4`. */
#ifndef RUNNER_DIRECT_H
#define RUNNER_DIRECT_H

int run_direct(int argc, char **argv);

#endif
