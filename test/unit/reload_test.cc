// The reload hand-over (common/process/reload.h): the readiness message carries the
// descriptors a generation registered, and a generation started by exec finds those handed
// to it after its readiness socket. Plain descriptors (a pipe, a memfd) stand for the
// snapshot's memfds and manifest.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "common/process/reload.h"
#include "gtest/gtest.h"
#include "test/unit/environment.h"

namespace {

// A SOCK_SEQPACKET pair as the supervisor makes one (ready_pair, supervisor.c).
struct Pair {
	int fd[2] = {-1, -1};
	Pair() { EXPECT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fd), 0); }
	~Pair()
	{
		for (int f : fd)
			if (f >= 0)
				close(f);
	}
};

// Whether a and b are the same open file (device and inode).
bool SameFile(int a, int b)
{
	struct stat sa, sb;
	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

TEST(ReloadHandOverTest, ReadyMessageCarriesTheDescriptors)
{
	Pair ready;
	int pipe_fds[2];
	ASSERT_EQ(pipe2(pipe_fds, O_CLOEXEC), 0);
	int memfd = memfd_create("snapshot", MFD_CLOEXEC);
	ASSERT_GE(memfd, 0);
	ASSERT_EQ(write(memfd, "body", 4), 4);
	const int sent[] = {pipe_fds[1], memfd};
	ASSERT_EQ(reload_send_ready(ready.fd[0], sent, 2), 1);

	int got[RELOAD_HANDOVER_MAX];
	uint32_t n = 99;
	ASSERT_EQ(reload_receive_ready(ready.fd[1], got, &n), 1);
	ASSERT_EQ(n, 2u);
	EXPECT_NE(got[0], pipe_fds[1]) << "a new descriptor, not the sender's number";
	EXPECT_TRUE(SameFile(got[0], pipe_fds[1]));
	EXPECT_TRUE(SameFile(got[1], memfd));
	EXPECT_EQ(fcntl(got[0], F_GETFD) & FD_CLOEXEC, FD_CLOEXEC) << "MSG_CMSG_CLOEXEC";
	ASSERT_EQ(write(got[0], "x", 1), 1); // the received write end feeds the pipe
	char c = 0;
	ASSERT_EQ(read(pipe_fds[0], &c, 1), 1);
	EXPECT_EQ(c, 'x');
	char body[4] = {};
	EXPECT_EQ(pread(got[1], body, 4, 0), 4);
	EXPECT_EQ(std::string(body, 4), "body");
	for (int f : {got[0], got[1], pipe_fds[0], pipe_fds[1], memfd})
		close(f);
}

TEST(ReloadHandOverTest, ReadyWithoutDescriptorsAndEndOfInput)
{
	Pair ready;
	ASSERT_EQ(reload_send_ready(ready.fd[0], nullptr, 0), 1);
	int got[RELOAD_HANDOVER_MAX];
	uint32_t n = 99;
	EXPECT_EQ(reload_receive_ready(ready.fd[1], got, &n), 1);
	EXPECT_EQ(n, 0u);
	close(ready.fd[0]);
	ready.fd[0] = -1;
	EXPECT_EQ(reload_receive_ready(ready.fd[1], got, &n), 0) << "the generation exited unready";
	EXPECT_EQ(n, 0u);
}

// A generation's reload_ready sends what reload_hand_over registered, once.
TEST(ReloadHandOverTest, GenerationSendsWhatItRegistered)
{
	Pair ready;
	int pipe_fds[2];
	ASSERT_EQ(pipe2(pipe_fds, O_CLOEXEC), 0);
	reload_become_generation(ready.fd[0]);
	ready.fd[0] = -1; // reload_ready closes it
	reload_hand_over(&pipe_fds[0], 1);
	reload_ready();
	reload_ready(); // answered already: nothing
	int got[RELOAD_HANDOVER_MAX];
	uint32_t n = 0;
	ASSERT_EQ(reload_receive_ready(ready.fd[1], got, &n), 1);
	ASSERT_EQ(n, 1u);
	EXPECT_TRUE(SameFile(got[0], pipe_fds[0]));
	EXPECT_EQ(reload_receive_ready(ready.fd[1], got, &n), 0) << "one message, then the end";
	for (int f : {got[0], pipe_fds[0], pipe_fds[1]})
		close(f);
}

// The layout a generation started by exec finds: RELOAD_ENV_HANDED descriptors right
// after RELOAD_ENV_READY_FD. Made here with dup2 at fixed numbers.
TEST(ReloadHandOverTest, HandedOverFromTheEnvironment)
{
	constexpr int kReady = 900;
	int pipe_fds[2];
	ASSERT_EQ(pipe2(pipe_fds, O_CLOEXEC), 0);
	ASSERT_EQ(dup2(pipe_fds[0], kReady + 1), kReady + 1);
	ASSERT_EQ(dup2(pipe_fds[1], kReady + 2), kReady + 2);
	const struct {
		const char *label;
		std::vector<std::string> env;
		uint32_t count;
	} cases[] = {
		{"two handed over", {"APOLLOD_READY_FD=900", "APOLLOD_HANDED_FDS=2"}, 2},
		{"none", {"APOLLOD_READY_FD=900", "APOLLOD_HANDED_FDS=0"}, 0},
		{"no variable", {"APOLLOD_READY_FD=900"}, 0},
		{"more than RELOAD_HANDOVER_MAX",
		 {"APOLLOD_READY_FD=900",
		  "APOLLOD_HANDED_FDS=" + std::to_string(RELOAD_HANDOVER_MAX + 1)},
		 0},
		{"not a number", {"APOLLOD_READY_FD=900", "APOLLOD_HANDED_FDS=two"}, 0},
		{"not a generation", {"APOLLOD_HANDED_FDS=2"}, 0},
	};
	for (const auto &c : cases) {
		SCOPED_TRACE(c.label);
		Environment env(c.env);
		reload_setup(env.envp());
		const int *fds = nullptr;
		ASSERT_EQ(reload_handed_over(&fds), c.count);
		for (uint32_t i = 0; i < c.count; i++)
			EXPECT_TRUE(SameFile(fds[i], pipe_fds[i])) << i;
	}
	for (int f : {kReady + 1, kReady + 2, pipe_fds[0], pipe_fds[1]})
		close(f);
}

} // namespace
