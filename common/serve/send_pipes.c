/* Send pipes: see send_pipes.h. */
#include "common/serve/send_pipes.h"

#include "common/base/counters.h"
#include "common/base/kernel_consts.h"
#include "common/base/sys.h"

/* Makes pipe p: both ends non-blocking (the socket's splice and the vmsplice must never
 * wait: the loop serves every connection) and close-on-exec, grown to SEND_PIPE_BYTES.
 * A refused F_SETPIPE_SZ leaves the default size (see SEND_PIPE_BYTES). Returns 0, or
 * -errno from pipe2 (EMFILE, ENFILE: no descriptor; the pipe stays lost). */
static long make_pipe(struct send_pipes *sp, int p)
{
	int ends[2];
	long r = sys_pipe2(ends, K_O_NONBLOCK | K_O_CLOEXEC);
	if (sys_is_error(r)) {
		sp->pipe[p].out = sp->pipe[p].in = -1;
		return r;
	}
	long size = sys_fcntl(ends[1], K_F_SETPIPE_SZ, SEND_PIPE_BYTES); /* its size, or EPERM */
	sp->pipe[p] = (struct send_pipe){
		.out = ends[0],
		.in = ends[1],
		.held = 0,
		.capacity = sys_is_error(size) ? SEND_PIPE_DEFAULT_BYTES : (uint32_t)size,
	};
	return 0;
}

uint32_t send_pipes_open(struct send_pipes *sp, uint32_t want)
{
	sp->free_count = 0;
	for (int p = 0; p < SEND_PIPES; p++) {
		sp->pipe[p] = (struct send_pipe){.out = -1, .in = -1};
		if ((uint32_t)p < want && !sys_is_error(make_pipe(sp, p)))
			sp->free[sp->free_count++] = (uint8_t)p;
	}
	return sp->free_count;
}

int send_pipe_take(struct send_pipes *sp)
{
	if (!sp->free_count) {
		counter_add(C_send_pipe_misses, 1);
		return SEND_PIPE_NONE;
	}
	return sp->free[--sp->free_count];
}

void send_pipe_give(struct send_pipes *sp, int p)
{
	struct send_pipe *x = &sp->pipe[p];
	if (x->held) { /* references to pages no response will send: never reused */
		sys_close(x->out); /* a pipe: close cannot lose data we want; AUDIT: close */
		sys_close(x->in);
		counter_add(C_send_pipes_recreated, 1);
		if (sys_is_error(make_pipe(sp, p))) {
			counter_add(C_send_pipes_lost, 1);
			return;
		}
	}
	sp->free[sp->free_count++] = (uint8_t)p;
}

long send_pipe_fill(struct send_pipes *sp, int p, const char *at, uint64_t len)
{
	struct send_pipe *x = &sp->pipe[p];
	if (x->held >= x->capacity)
		return 0;
	uint64_t asked = len < SEND_PIPE_BYTES ? len : SEND_PIPE_BYTES;
	struct k_iovec v = {.iov_base = at, .iov_len = asked};
	counter_add(C_syscalls_total, 1); /* as the backends' COUNTED */
	long n = sys_vmsplice(x->in, &v, 1, K_SPLICE_F_NONBLOCK);
	if (n == -EAGAIN)
		return 0; /* full: the socket has not taken what is in it yet */
	if (n > 0)
		x->held += (uint32_t)n;
	return n;
}
