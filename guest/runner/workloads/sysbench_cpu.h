/* sysbench_cpu.h - the part of the sysbench_cpu workload its unit tests
 * reach: one event, the primes up to max_prime. */
#ifndef LAB_SYSBENCH_CPU_H
#define LAB_SYSBENCH_CPU_H





unsigned long long sb_cpu_event(unsigned long long max_prime);

#endif
