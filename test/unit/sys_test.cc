// The syscall convention (common/base/sys.h) and the listener set-up (common/process/listener.h),
// checked against the host libc in the same process: what a wrapper creates, libc sees,
// and the other way round.

// common/ headers first (kept from when kernel_consts.h named a field sa_handler, which glibc's
// <signal.h> defines as a macro.
#include "common/process/listener.h"
#include "test/unit/sys_probe.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <string>

#include <gtest/gtest.h>

namespace {

const struct sys_wrappers &sys = sys_wrappers;

int SocketOption(int fd, int option)
{
	int value = -1;
	socklen_t len = sizeof(value);
	EXPECT_EQ(getsockopt(fd, SOL_SOCKET, option, &value, &len), 0) << strerror(errno);
	return value;
}

bool FdIsOpen(int fd)
{
	return fcntl(fd, F_GETFD) != -1 || errno != EBADF;
}

// 127.0.0.1:port as the kernel wants it.
union k_sockaddr Loopback(uint16_t port)
{
	union k_sockaddr any = {};
	struct k_sockaddr_in &a = any.in;
	a.sin_family = K_AF_INET;
	a.sin_port = htons(port);
	a.sin_addr = htonl(INADDR_LOOPBACK);
	return any;
}

TEST(SysTest, ErrorsComeBackAsMinusErrno)
{
	EXPECT_EQ(sys.write(-1, "x", 1), -EBADF);
	EXPECT_EQ(sys.close(-1), -EBADF);
	EXPECT_EQ(sys.socket(-1, K_SOCK_STREAM, 0), -EAFNOSUPPORT);
	struct k_timespec ts;
	EXPECT_EQ(sys.clock_gettime(-12345, &ts), -EINVAL);
}

TEST(SysTest, IsErrorBoundaries)
{
	const struct {
		const char *label;
		long result;
		int is_error;
	} cases[] = {
		{"-1 (EPERM)", -1, 1},
		{"-4095, the lowest -errno", -4095, 1},
		{"-4096 is not an error", -4096, 0},
		{"-4097 is not an error", -4097, 0},
		{"0", 0, 0},
		{"1", 1, 0},
		{"large positive (an address)", 0x7ffff7dd0000L, 0},
		{"LONG_MAX", LONG_MAX, 0},
		{"LONG_MIN", LONG_MIN, 0},
	};
	for (const auto &c : cases) {
		SCOPED_TRACE(c.label);
		EXPECT_EQ(sys.is_error(c.result), c.is_error);
	}
}

TEST(SysTest, SocketAndCloseAgreeWithLibc)
{
	long fd = sys.socket(K_AF_INET, K_SOCK_STREAM | K_SOCK_NONBLOCK | K_SOCK_CLOEXEC, 0);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(SocketOption((int)fd, SO_DOMAIN), AF_INET);
	EXPECT_EQ(SocketOption((int)fd, SO_TYPE), SOCK_STREAM);
	EXPECT_TRUE(fcntl((int)fd, F_GETFD) & FD_CLOEXEC);
	EXPECT_TRUE(fcntl((int)fd, F_GETFL) & O_NONBLOCK);
	EXPECT_EQ(sys.close((int)fd), 0);
	EXPECT_FALSE(FdIsOpen((int)fd));

	int libc_fd = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_GE(libc_fd, 0);
	EXPECT_EQ(sys.close(libc_fd), 0);
	EXPECT_FALSE(FdIsOpen(libc_fd));
	EXPECT_EQ(sys.close(libc_fd), -EBADF) << "closing twice";
}

TEST(SysTest, GetsocknameAgreesWithLibc)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_GE(fd, 0);
	struct sockaddr_in bound = {};
	bound.sin_family = AF_INET;
	bound.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ASSERT_EQ(bind(fd, (struct sockaddr *)&bound, sizeof(bound)), 0) << strerror(errno);

	struct sockaddr_in libc_addr = {};
	socklen_t libc_len = sizeof(libc_addr);
	ASSERT_EQ(getsockname(fd, (struct sockaddr *)&libc_addr, &libc_len), 0);
	union k_sockaddr any;
	uint32_t our_len = sizeof(struct k_sockaddr_in);
	ASSERT_EQ(sys.getsockname(fd, &any, &our_len), 0);
	const struct k_sockaddr_in &ours = any.in;
	EXPECT_EQ(our_len, libc_len);
	EXPECT_EQ(ours.sin_family, libc_addr.sin_family);
	EXPECT_NE(ours.sin_port, 0) << "the kernel chose a port";
	EXPECT_EQ(ours.sin_port, libc_addr.sin_port);
	EXPECT_EQ(ours.sin_addr, libc_addr.sin_addr.s_addr);
	close(fd);
}

TEST(SysTest, ClockGettimeLiesBetweenTwoLibcReadings)
{
	struct timespec before, after;
	struct k_timespec ours;
	ASSERT_EQ(clock_gettime(CLOCK_MONOTONIC, &before), 0);
	ASSERT_EQ(sys.clock_gettime(K_CLOCK_MONOTONIC, &ours), 0);
	ASSERT_EQ(clock_gettime(CLOCK_MONOTONIC, &after), 0);
	auto ns = [](int64_t s, int64_t n) { return s * 1000000000 + n; };
	EXPECT_LE(ns(before.tv_sec, before.tv_nsec), ns(ours.tv_sec, ours.tv_nsec));
	EXPECT_LE(ns(ours.tv_sec, ours.tv_nsec), ns(after.tv_sec, after.tv_nsec));
	EXPECT_GE(ours.tv_nsec, 0);
	EXPECT_LT(ours.tv_nsec, 1000000000);
}

// The daemon's start-up sets its soft descriptor limit this way (daemon_main.c): what the
// wrapper reads and writes, libc's getrlimit sees.
TEST(SysTest, Prlimit64AgreesWithLibc)
{
	struct rlimit libc_before;
	ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &libc_before), 0);
	struct k_rlimit ours;
	ASSERT_EQ(sys.prlimit64(0, K_RLIMIT_NOFILE, nullptr, &ours), 0);
	EXPECT_EQ(ours.rlim_cur, libc_before.rlim_cur);
	EXPECT_EQ(ours.rlim_max, libc_before.rlim_max);
	struct k_rlimit lower = {ours.rlim_cur - 1, ours.rlim_max};
	ASSERT_EQ(sys.prlimit64(0, K_RLIMIT_NOFILE, &lower, nullptr), 0);
	struct rlimit libc_after;
	ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &libc_after), 0);
	EXPECT_EQ(libc_after.rlim_cur, ours.rlim_cur - 1);
	ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &libc_before), 0); // as it was
}

// --watch's descriptor (common/process/watch.c): the wrappers' inotify instance and watch
// are libc's too: a file created in the watched directory is an event libc's read gets,
// whole; a file is refused by IN_ONLYDIR; a bad descriptor is -EBADF.
TEST(SysTest, InotifyAgreesWithLibc)
{
	char dir[] = "/tmp/apollod-sys-inotify-XXXXXX";
	ASSERT_NE(mkdtemp(dir), nullptr);
	long fd = sys.inotify_init1(K_IN_NONBLOCK | K_IN_CLOEXEC);
	ASSERT_FALSE(sys.is_error(fd)) << fd;
	EXPECT_EQ(fcntl((int)fd, F_GETFD), FD_CLOEXEC);
	EXPECT_NE(fcntl((int)fd, F_GETFL) & O_NONBLOCK, 0);
	long wd = sys.inotify_add_watch((int)fd, dir, K_IN_CREATE | K_IN_ONLYDIR);
	EXPECT_FALSE(sys.is_error(wd)) << wd;
	char buf[sizeof(struct inotify_event) + NAME_MAX + 1];
	EXPECT_EQ(read((int)fd, buf, sizeof(buf)), -1) << "an event before any change";
	EXPECT_EQ(errno, EAGAIN);
	std::string file = std::string(dir) + "/f";
	int made = open(file.c_str(), O_WRONLY | O_CREAT, 0644);
	ASSERT_GE(made, 0);
	close(made);
	ssize_t n = read((int)fd, buf, sizeof(buf));
	ASSERT_GE(n, (ssize_t)sizeof(struct inotify_event)) << strerror(errno);
	const struct inotify_event *e = (const struct inotify_event *)buf;
	EXPECT_EQ(e->wd, wd);
	EXPECT_EQ(e->mask, (uint32_t)IN_CREATE);
	EXPECT_STREQ(e->name, "f");
	EXPECT_EQ(sys.inotify_add_watch((int)fd, file.c_str(), K_IN_CREATE | K_IN_ONLYDIR),
		  -ENOTDIR);
	EXPECT_EQ(sys.inotify_add_watch(-1, dir, K_IN_CREATE), -EBADF);
	close((int)fd);
	unlink(file.c_str());
	rmdir(dir);
}

// The supervisor's bounded wait (workers.c): a descriptor with nothing to read times out
// with 0 after the timeout; one with input reports POLLIN at once.
TEST(SysTest, PpollWaitsAndReports)
{
	int p[2];
	ASSERT_EQ(pipe(p), 0);
	struct k_pollfd want = {p[0], K_POLLIN, 0};
	struct k_timespec wait = {0, 50 * 1000000};
	struct timespec before, after;
	clock_gettime(CLOCK_MONOTONIC, &before);
	EXPECT_EQ(sys.ppoll(&want, 1, &wait), 0);
	clock_gettime(CLOCK_MONOTONIC, &after);
	int64_t waited_ms = (after.tv_sec - before.tv_sec) * 1000 +
			    (after.tv_nsec - before.tv_nsec) / 1000000;
	EXPECT_GE(waited_ms, 49) << "returned before its timeout";
	ASSERT_EQ(write(p[1], "x", 1), 1);
	EXPECT_EQ(sys.ppoll(&want, 1, &wait), 1);
	EXPECT_EQ(want.revents, POLLIN);
	struct pollfd libc = {p[0], POLLIN, 0};
	EXPECT_EQ(poll(&libc, 1, 0), 1); // libc agrees
	struct k_timespec bad = {0, -1};
	EXPECT_EQ(sys.ppoll(&want, 1, &bad), -EINVAL);
	close(p[0]);
	close(p[1]);
}

TEST(ListenerTest, OpensOnPortZeroAndRefusesABusyPort)
{
	union k_sockaddr addr = Loopback(0);
	int fd = -1;
	ASSERT_EQ(listener_open(&addr, K_SOCK_NONBLOCK, &fd), EXIT_OK);
	EXPECT_NE(addr.in.sin_port, 0) << "the kernel's port is written back";
	EXPECT_EQ(SocketOption(fd, SO_ACCEPTCONN), 1);
	EXPECT_EQ(SocketOption(fd, SO_REUSEADDR), 1);
	EXPECT_TRUE(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	EXPECT_TRUE(fcntl(fd, F_GETFL) & O_NONBLOCK);
	struct sockaddr_in libc_addr = {};
	socklen_t len = sizeof(libc_addr);
	ASSERT_EQ(getsockname(fd, (struct sockaddr *)&libc_addr, &len), 0);
	EXPECT_EQ(addr.in.sin_port, libc_addr.sin_port);

	// BEHAVIOUR 3: Linux refuses a second SO_REUSEADDR listener on the same address.
	union k_sockaddr same = addr;
	int second = -1;
	EXPECT_EQ(listener_open(&same, 0, &second), EXIT_BIND);
	close(fd);
}

// Writes a byte to fd until the result is -EPIPE, at most `tries` times, sleeping a little
// between tries (a TCP peer's RST takes a moment). Every other result must be a success or
// -ECONNRESET. Returns whether -EPIPE came.
bool WriteUntilEpipe(int fd, int tries)
{
	for (int i = 0; i < tries; i++) {
		long r = sys.write(fd, "x", 1);
		if (r == -EPIPE)
			return true;
		EXPECT_TRUE(r == 1 || r == -ECONNRESET) << "write returned " << r;
		usleep(2000);
	}
	return false;
}

// Sets SIGPIPE back to the default action (terminate), as a fresh process has it.
void DefaultSigpipe()
{
	struct sigaction dfl = {};
	dfl.sa_handler = SIG_DFL;
	ASSERT_EQ(sigaction(SIGPIPE, &dfl, nullptr), 0);
}

TEST(ListenerTest, IgnoreSigpipeTurnsTheSignalIntoEpipe)
{
	DefaultSigpipe();
	ASSERT_EQ(ignore_sigpipe(), 0);
	struct sigaction now;
	ASSERT_EQ(sigaction(SIGPIPE, nullptr, &now), 0);
	EXPECT_EQ(now.sa_handler, SIG_IGN);

	int pair[2];
	ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
	close(pair[1]);
	EXPECT_EQ(sys.write(pair[0], "x", 1), -EPIPE);
	EXPECT_EQ(sys.send(pair[0], "x", 1, 0), -EPIPE) << "send without MSG_NOSIGNAL";
	close(pair[0]);

	union k_sockaddr addr = Loopback(0);
	int listener = -1;
	ASSERT_EQ(listener_open(&addr, 0, &listener), EXIT_OK);
	int client = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_GE(client, 0);
	ASSERT_EQ(connect(client, (const struct sockaddr *)&addr, sizeof(addr)), 0)
		<< strerror(errno);
	long server = sys.accept4(listener, K_SOCK_CLOEXEC);
	ASSERT_GE(server, 0);
	close(client);
	EXPECT_TRUE(WriteUntilEpipe((int)server, 500)) << "TCP peer closed";
	close((int)server);
	close(listener);
	// Still here: neither write killed the process.
}

// The control for the test above: without ignore_sigpipe the same write kills the process,
// so that test really depends on it. The threadsafe style re-executes this binary, which
// under user-mode emulation (APOLLOD_EMULATOR set by bazel/aarch64/qemu_run.sh, no
// binfmt_misc) the kernel cannot run; there the child is only forked.
TEST(ListenerDeathTest, WithoutIgnoreSigpipeTheWriteKills)
{
	GTEST_FLAG_SET(death_test_style, getenv("APOLLOD_EMULATOR") ? "fast" : "threadsafe");
	EXPECT_EXIT(
		{
			DefaultSigpipe();
			int pair[2];
			if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0)
				_exit(2);
			close(pair[1]);
			sys.write(pair[0], "x", 1);
			_exit(0);
		},
		::testing::KilledBySignal(SIGPIPE), "");
}

} // namespace
