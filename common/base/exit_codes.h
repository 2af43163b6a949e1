/* Process exit codes (BEHAVIOUR 3): one per fatal start-up or loop failure. */
#ifndef APOLLOD_COMMON_EXIT_CODES_H
#define APOLLOD_COMMON_EXIT_CODES_H

enum exit_code {
	EXIT_OK = 0,
	EXIT_SOCKET = 1,     /* socket(2) */
	EXIT_SETSOCKOPT = 2, /* setsockopt(2) */
	EXIT_BIND = 3,       /* bind(2): also a second daemon on a busy port */
	EXIT_LISTEN = 4,     /* listen(2) or getsockname(2) right after it */
	EXIT_ACCEPT = 5,     /* an accept4(2) error that is not transient */
	EXIT_EPOLL_CREATE = 7,
	EXIT_WAIT = 8,      /* epoll_ctl(2) on the listener, or epoll_wait(2) */
	EXIT_ROOT_LIMIT = 9, /* --root: a file cache limit was exceeded */
	EXIT_ROOT_READ = 10, /* --root: a directory or file could not be opened or mapped */
	EXIT_URING = 11,     /* the uring tier: io_uring refused or unusable at start-up */
	EXIT_DRAIN_TIMEOUT = 12, /* graceful stop: --drain-timeout passed with responses
				  * still in flight; they were cut */
	EXIT_STOP_AGAIN = 13, /* graceful stop: a second SIGTERM or SIGINT ended it at once */
	EXIT_WORKERS = 14,   /* --workers: the supervisor could not share the counters,
			      * create its signal descriptor or fork */
	EXIT_ACCESS_LOG = 15, /* --access-log: the file could not be opened, or stdout made
			       * non-blocking */
	EXIT_USER = 16,      /* --user: not root, an unknown name, or a refused setgroups,
			      * setgid or setuid (BEHAVIOUR 19) */
	EXIT_SANDBOX = 17,   /* the seccomp filter or Landlock could not be put in place on
			      * a kernel that has them (BEHAVIOUR 19) */
	EXIT_STACK_GUARD = 18, /* a stack-protector check in linked code (libdeflate) failed:
				* its stack was overwritten */
	EXIT_CONFIG = 19,    /* --config FILE: unreadable, too big, or a line refused
			      * (BEHAVIOUR 2.1) */
	EXIT_USAGE = 64,     /* EX_USAGE: bad flag or value */
};

#endif /* APOLLOD_COMMON_EXIT_CODES_H */
