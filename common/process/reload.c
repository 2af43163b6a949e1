/* A serving generation's side of a reload (see reload.h). */
#include "common/process/reload.h"

#include <asm/socket.h> /* SOL_SOCKET */

#include "common/process/activation.h"
#include "common/base/span.h"
#include "common/base/sys.h"

#define HANDOVER_CONTROL_BYTES K_CMSG_SPACE(sizeof(int) * RELOAD_HANDOVER_MAX)
STATIC_ASSERT(HANDOVER_CONTROL_BYTES % sizeof(uint64_t) == 0, "control buffer of whole words");

/* The generation's reload state: in .bss (zero) until reload_setup, which runs first. */
struct reload_unit {
	char **envp;
	int generation;   /* 1 in a serving generation, 0 in the supervisor */
	long supervisor;  /* in a generation (and its workers): the resident supervisor's pid */
	int ready_fd;     /* the readiness socket until reload_ready, else -1 */
	int handed[RELOAD_HANDOVER_MAX]; /* handed over to this generation */
	uint32_t handed_count;
	int to_hand[RELOAD_HANDOVER_MAX]; /* registered for the next one (reload_hand_over) */
	uint32_t to_hand_count;
};
static struct reload_unit reload;

void reload_setup(char **envp)
{
	reload.envp = envp;
	const char *v = env_value(envp, LITERAL(RELOAD_ENV_READY_FD));
	long fd = v ? env_decimal(v) : -1;
	reload.ready_fd = fd > K_STDERR ? (int)fd : -1;
	reload.generation = reload.ready_fd >= 0;
	reload.supervisor = reload.generation ? sys_getppid() : 0;
	const char *handed = env_value(envp, LITERAL(RELOAD_ENV_HANDED));
	long n = handed && reload.generation ? env_decimal(handed) : 0;
	reload.handed_count = n > 0 && n <= RELOAD_HANDOVER_MAX ? (uint32_t)n : 0;
	for (uint32_t i = 0; i < reload.handed_count; i++)
		reload.handed[i] = reload.ready_fd + 1 + (int)i; /* the layout supervisor.c makes */
}

int reload_is_generation(void)
{
	return reload.generation;
}

void reload_become_generation(int ready_fd)
{
	reload.generation = 1;
	reload.supervisor = sys_getppid(); /* just forked from it */
	reload.ready_fd = ready_fd;
}

int reload_listen_groups(uint32_t max)
{
	const char *v = env_value(reload.envp, LITERAL(RELOAD_ENV_GROUPS));
	if (!v)
		return 1;
	long n = env_decimal(v);
	return n >= 1 && n <= (long)max ? (int)n : -1;
}

void reload_hand_over(const int *fds, uint32_t n)
{
	reload.to_hand_count = n < RELOAD_HANDOVER_MAX ? n : RELOAD_HANDOVER_MAX;
	for (uint32_t i = 0; i < reload.to_hand_count; i++)
		reload.to_hand[i] = fds[i];
}

void reload_release_hand_over(void)
{
	for (uint32_t i = 0; i < reload.to_hand_count; i++)
		sys_close(reload.to_hand[i]);
	reload.to_hand_count = 0;
}

uint32_t reload_handed_over(const int **fds)
{
	*fds = reload.handed;
	return reload.handed_count;
}

long reload_send_ready(int fd, const int *fds, uint32_t n)
{
	uint64_t control[HANDOVER_CONTROL_BYTES / sizeof(uint64_t)];
	struct k_cmsghdr *c = (struct k_cmsghdr *)control;
	c->cmsg_len = K_CMSGHDR_SIZE + sizeof(int) * n;
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = K_SCM_RIGHTS;
	int *data = (int *)(c + 1);
	for (uint32_t i = 0; i < n; i++)
		data[i] = fds[i];
	char byte = RELOAD_READY_BYTE;
	struct k_iovec iov = {&byte, 1};
	struct k_msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
	if (n) { /* SCM_RIGHTS with no descriptor is EINVAL */
		m.msg_control = control;
		m.msg_controllen = K_CMSG_SPACE(sizeof(int) * n);
	}
	return sys_sendmsg(fd, &m, K_MSG_NOSIGNAL);
}

long reload_receive_ready(int fd, int *fds, uint32_t *n)
{
	uint64_t control[HANDOVER_CONTROL_BYTES / sizeof(uint64_t)];
	char byte = 0;
	struct k_iovec iov = {&byte, 1};
	struct k_msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
			     .msg_controllen = sizeof(control)};
	*n = 0;
	long r = sys_recvmsg(fd, &m, K_MSG_CMSG_CLOEXEC);
	if (r <= 0)
		return r;
	struct k_cmsghdr *c = (struct k_cmsghdr *)control;
	if (m.msg_controllen >= K_CMSGHDR_SIZE && c->cmsg_level == SOL_SOCKET &&
	    c->cmsg_type == K_SCM_RIGHTS && c->cmsg_len >= K_CMSGHDR_SIZE) {
		uint32_t got = (uint32_t)((c->cmsg_len - K_CMSGHDR_SIZE) / sizeof(int));
		const int *data = (const int *)(c + 1);
		for (uint32_t i = 0; i < got && i < RELOAD_HANDOVER_MAX; i++)
			fds[(*n)++] = data[i];
	}
	return byte == RELOAD_READY_BYTE ? 1 : -EPROTO;
}

void reload_ready(void)
{
	if (reload.ready_fd < 0)
		return;
	reload_send_ready(reload.ready_fd, reload.to_hand, reload.to_hand_count);
	sys_close(reload.ready_fd);
	reload.ready_fd = -1;
}

int reload_ready_fd(void)
{
	return reload.ready_fd;
}

void reload_request(int sig)
{
	if (reload.generation)
		sys_kill((int)reload.supervisor, sig);
}

void reload_accepts_released(void)
{
	if (reload.generation)
		sys_kill((int)reload.supervisor, K_SIGIO);
}
