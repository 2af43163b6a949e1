/* apollod-min: socket, bind, listen, then forever accept, one read, one write of a fixed
 * 200 OK, close. No parser, routing, counters or deadlines; as few instructions as
 * possible. Blocking sockets: there is nothing else to do while waiting. A peer that
 * closes early only makes read or write fail (SIGPIPE is ignored), and the loop goes on. */
#include "common/process/cli.h"
#include "common/base/exit_codes.h"
#include "common/process/listener.h"
#include "common/answer/responses.h"
#include "common/base/span.h"
#include "common/base/start.h"
#include "common/base/static_assert.h"
#include "common/base/sys.h"

#define MIN_BODY "OK"
#define MIN_BODY_LEN 2
/* The routed tiers' head pieces (responses.h), without a Content-Type: the floor sends
 * only what HTTP/1.1 framing needs. */
#define MIN_RESPONSE                                                                   \
	HEAD_STATUS_LINE("200 OK") "Content-Length: 2" HEAD_CONNECTION_FIELD "close" HEAD_END \
	MIN_BODY
STATIC_ASSERT(sizeof(MIN_BODY) - 1 == MIN_BODY_LEN, "Content-Length: 2 matches the body");
#define MIN_READ_SIZE 8192

static const char response[] = MIN_RESPONSE;
#ifndef APOLLOD_TIER_NAME
#error "APOLLOD_TIER_NAME is set by apollod_tier() (bazel/tier.bzl)"
#endif
static const struct program min_program = {"apollod-min", APOLLOD_TIER_NAME, CLI_ACCEPT_LISTEN};
static char request[MIN_READ_SIZE];

int apollod_main(int argc, char **argv, char **envp, const uint64_t *auxv)
{
	(void)envp;
	(void)auxv;
	struct cli_options opts;
	int done = startup_options(argc, argv, &min_program, &opts);
	if (done != STARTUP_CONTINUE)
		return done;
	ignore_sigpipe();
	int lfd;
	enum exit_code r = listener_open(&opts.listen[0], 0, &lfd);
	if (r != EXIT_OK)
		return r;
	listener_announce(LITERAL("apollod-min"), &opts.listen[0]);
	for (;;) {
		long fd = sys_accept4(lfd, K_SOCK_CLOEXEC);
		if (sys_is_error(fd)) {
			if (fd == -EINTR || fd == -ECONNABORTED)
				continue;
			return console_fail_fd("accept4", lfd, fd, EXIT_ACCEPT);
		}
		sys_read((int)fd, request, sizeof(request));
		sys_write((int)fd, response, sizeof(response) - 1);
		sys_close((int)fd);
	}
}
