/* ustep: counts the user-space instructions a running process executes, by single-stepping
 * it with ptrace, for a bounded time. For a tier callgrind cannot run (valgrind blocks
 * signals in io_uring_enter, so the uring tier never sees its signalfd) and where the
 * hardware counters are out of reach (`perf stat -e instructions:u` says <not supported>
 * in a VM without a virtual PMU). Each PTRACE_SINGLESTEP stop is one user-space
 * instruction retired; a syscall instruction is one step, whatever the kernel does inside
 * it (the kernel's work is not counted, as with instructions:u). The traced process runs
 * some ten thousand times slower, so the load must be a count of requests, not a rate.
 *
 * Usage: ustep PID SECONDS
 * Attaches (PTRACE_SEIZE), steps for SECONDS (1..600) of wall-clock time, detaches at the
 * first stop after that (a process blocked in a syscall must be woken, e.g. by a
 * connection), and prints "steps N" on stdout. Signals the process receives meanwhile are passed on.
 * Exit 0, or 1 with one stderr line. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SECONDS_MAX 600

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Waits for pid's next stop. Returns the signal to pass on with the next step (0 for
 * ptrace's own stops) or -1 when pid is gone. Counts a completed single step in *steps. */
static int next_stop(pid_t pid, unsigned long long *steps)
{
	int status;
	if (waitpid(pid, &status, __WALL) < 0 || !WIFSTOPPED(status))
		return -1;
	int sig = WSTOPSIG(status);
	if (sig != SIGTRAP)
		return (status >> 16) == PTRACE_EVENT_STOP ? 0 : sig;
	*steps += (status >> 16) == 0; /* a step, not the seize's interrupt stop */
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: ustep PID SECONDS\n");
		return 1;
	}
	pid_t pid = (pid_t)atoi(argv[1]);
	int seconds = atoi(argv[2]);
	if (pid <= 0 || seconds < 1 || seconds > SECONDS_MAX) {
		fprintf(stderr, "ustep: PID > 0 and SECONDS 1..%d\n", SECONDS_MAX);
		return 1;
	}
	if (ptrace(PTRACE_SEIZE, pid, 0, 0) < 0 || ptrace(PTRACE_INTERRUPT, pid, 0, 0) < 0) {
		fprintf(stderr, "ustep: cannot trace %d: %s\n", (int)pid, strerror(errno));
		return 1;
	}
	unsigned long long steps = 0;
	int sig = next_stop(pid, &steps);
	double end = now_s() + seconds;
	/* Detaches only at a stop, never by interrupting a step blocked in a syscall (that
	 * step's SIGTRAP would reach the process after the detach and kill it): past the
	 * window, the first stop ends it, so the caller wakes the process up once. */
	while (sig >= 0 && now_s() < end) {
		if (ptrace(PTRACE_SINGLESTEP, pid, 0, (void *)(long)sig) < 0)
			break;
		sig = next_stop(pid, &steps);
	}
	if (sig >= 0)
		ptrace(PTRACE_DETACH, pid, 0, (void *)(long)sig);
	printf("steps %llu\n", steps);
	return sig >= 0 ? 0 : 1;
}
