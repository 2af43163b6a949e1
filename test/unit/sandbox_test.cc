// The sandbox (BEHAVIOUR 19): the seccomp filter built from the syscall table, loaded in a
// forked child that then makes one call: a listed call returns, anything else kills the
// child with SIGSYS. Landlock in a child the same way. --user's /etc/passwd and /etc/group
// lookups, table-driven.
#include <errno.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/seccomp.h>

#include <cstring>
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "test/unit/label_name.h"

// sys.h brings the kernel's <linux/fcntl.h> (O_*, F_*), so not libc's <fcntl.h>.
extern "C" {
#include "common/base/sys.h"
#include "common/base/sys_table.h"
#include "common/process/sandbox.h"
#include "common/process/user_db.h"
}

namespace {

// Exit codes a child uses to report (a kill by SIGSYS is the other outcome).
constexpr int kCallReturned = 0;
constexpr int kNoFilter = 90;

// One call made under the filter: what it is, the filter's set, and whether it is allowed.
struct FilterCase {
	const char *label;
	uint32_t allow;   // SYS_SERVE
	long (*call)(void);
	bool allowed;
};

long CallWrite() { return sys_write(-1, "", 0); }             // EBADF, not a kill
long CallClockGettime()
{
	struct k_timespec t;
	return sys_clock_gettime(K_CLOCK_MONOTONIC, &t);
}
long CallAccept4() { return sys_accept4(-1, 0); }
long CallIoUringEnter() { return sys_io_uring_enter(~0u, 0, 0, 0, 0, 0); }
long CallSocket() { return sys_socket(K_AF_INET, K_SOCK_STREAM, 0); }
// A disk-served file's open and the fallback's directory step (disk_open.c's flags).
long CallOpenatDiskFile() { return sys_openat(-100 /* AT_FDCWD */, "/", SYS_OPEN_DISK_FILE); }
long CallOpenatDiskDir() { return sys_openat(-100, "/", SYS_OPEN_DISK_DIR); }
long CallOpenatPlain() { return sys_openat(-100, "/", O_RDONLY); }
long CallOpenatWrite() { return sys_openat_mode(-100, "/nonexistent/x", O_WRONLY | O_CREAT, 0600); }
long CallOpenat2()
{
	struct k_open_how_test {
		uint64_t flags, mode, resolve;
	} how = {SYS_OPEN_DISK_FILE, 0, 0};
	return sys_openat2(-100, "/", &how, sizeof(how));
}
long CallOpenat2Larger()
{
	uint64_t how[4] = {SYS_OPEN_DISK_FILE, 0, 0, 0};
	return sys_openat2(-100, "/", how, sizeof(how));
}
long CallStatxEmptyPath()
{
	char buf[256];
	return sys_statx(0, "", K_AT_EMPTY_PATH, 0, buf);
}
long CallStatxByName()
{
	char buf[256];
	return sys_statx(-100, "/etc/passwd", 0, 0, buf);
}
long CallSendmsgMore() { return sys_sendmsg(-1, nullptr, K_MSG_MORE | K_MSG_NOSIGNAL); }
long CallSendmsgPlain() { return sys_sendmsg(-1, nullptr, 0); }
long CallRecvPeek()
{
	char byte;
	return sys_recv(-1, &byte, 1, K_MSG_PEEK | K_MSG_DONTWAIT);
}
long CallRecvPlain()
{
	char byte;
	return sys_recv(-1, &byte, 1, 0);
}
long CallSendfile() { return sys_sendfile(-1, -1, nullptr, 0); }
long CallGetpid() { return sys_getpid(); }
long CallGetppid() { return sys_getppid(); }
long CallExecve() { return sys_execve("/nonexistent", nullptr, nullptr); } // ENOENT if let
long CallFork() { return sys_fork(); }
long CallFcntlDupfd() { return sys_fcntl(-1, K_F_DUPFD_CLOEXEC, 0); }
long CallFcntlSetpipe() { return sys_fcntl(-1, F_SETPIPE_SZ, 4096); } // no pipe is made
long CallFcntlGetfl() { return sys_fcntl(0, K_F_GETFL, 0); }
long CallFcntlSetown() { return sys_fcntl(-1, K_F_SETOWN, 0); }
long CallDup3Cloexec() { return sys_dup3(-1, -1, K_O_CLOEXEC); }
long CallDup3Plain() { return sys_dup3(-1, -1, 0); }
long CallPipe2Cloexec()
{
	int fds[2];
	return sys_pipe2(fds, K_O_CLOEXEC);
}
long CallPipe2Send()
{
	int fds[2];
	return sys_pipe2(fds, K_O_NONBLOCK | K_O_CLOEXEC); // a send pipe made anew
}
long CallVmspliceNonblock() { return sys_vmsplice(-1, nullptr, 0, K_SPLICE_F_NONBLOCK); }
long CallVmspliceGift() { return sys_vmsplice(-1, nullptr, 0, K_SPLICE_F_NONBLOCK | 0x08); }
long CallSpliceMove() { return sys_splice(-1, nullptr, -1, nullptr, 0, K_SPLICE_F_MOVE | K_SPLICE_F_NONBLOCK); }
long CallSpliceMore()
{
	return sys_splice(-1, nullptr, -1, nullptr, 0,
			  K_SPLICE_F_MOVE | K_SPLICE_F_NONBLOCK | K_SPLICE_F_MORE);
}
long CallSpliceBlocking() { return sys_splice(-1, nullptr, -1, nullptr, 0, K_SPLICE_F_MOVE); }
long CallPpoll()
{
	struct k_timespec now = {0, 0};
	return sys_ppoll(nullptr, 0, &now);
}
long CallMmapRead()
{
	return sys_mmap(0, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}
long CallMemfdCreate() { return sys_memfd_create("x", K_MFD_CLOEXEC); }
long CallKillSighup() { return sys_kill(0x7fffffff, K_SIGHUP); } // ESRCH
long CallKillSigio() { return sys_kill(0x7fffffff, K_SIGIO); }
long CallKillSigusr1() { return sys_kill(0x7fffffff, K_SIGUSR1); }
long CallKillSigusr2() { return sys_kill(0x7fffffff, K_SIGUSR2); }
long CallKillSigterm() { return sys_kill(0x7fffffff, K_SIGTERM); }
long CallKillSigkill() { return sys_kill(0x7fffffff, SIGKILL); }
long CallPrctlGetSeccomp() { return sys_prctl(PR_GET_SECCOMP, 0, 0); }
long CallSetuid() { return sys_setuid(0); }
long CallGetuid() { return sys_getuid(); }
long CallGetsockname()
{
	union k_sockaddr a;
	uint32_t len = sizeof(a);
	return sys_getsockname(-1, &a, &len);
}
long CallRecvmsg() { return sys_recvmsg(-1, nullptr, 0); }
// Not in the table at all: a raw number the daemon never names.
long CallPtrace() { return syscall4(__NR_ptrace, 0, 0, 0, 0); }

void PrintTo(const FilterCase &c, std::ostream *os) { *os << c.label; }

constexpr uint32_t kServe = SYS_SERVE;

// What a serving process makes is allowed with exactly its arguments; the start-up's
// calls (the supervisors', loading's, binding's) are not.
const FilterCase kFilterCases[] = {
	{"write is served", kServe, CallWrite, true},
	{"clock_gettime is served", kServe, CallClockGettime, true},
	{"accept4 is served", kServe, CallAccept4, true},
	{"io_uring_enter is served", kServe, CallIoUringEnter, true},
	{"socket is start-up only", kServe, CallSocket, false},
	{"openat of a disk-served file is served", kServe, CallOpenatDiskFile, true},
	{"openat of the fallback's directory is served", kServe, CallOpenatDiskDir, true},
	{"openat with other flags is not", kServe, CallOpenatPlain, false},
	{"openat for writing is not", kServe, CallOpenatWrite, false},
	{"openat2 with the first open_how is served", kServe, CallOpenat2, true},
	{"openat2 with a larger open_how is not", kServe, CallOpenat2Larger, false},
	{"statx of a descriptor is served", kServe, CallStatxEmptyPath, true},
	{"statx by name is not", kServe, CallStatxByName, false},
	{"sendmsg MSG_MORE is served", kServe, CallSendmsgMore, true},
	{"sendmsg without MSG_NOSIGNAL is not", kServe, CallSendmsgPlain, false},
	{"recvfrom MSG_PEEK|MSG_DONTWAIT is served (an eviction's look)", kServe, CallRecvPeek, true},
	{"recvfrom without them is not", kServe, CallRecvPlain, false},
	{"sendfile is served", kServe, CallSendfile, true},
	{"getpid is start-up only", kServe, CallGetpid, false},
	{"getppid is served (a real-time signal counts only from the parent)", kServe, CallGetppid, true},
	{"execve is the supervisor's", kServe, CallExecve, false},
	{"fork is the supervisors'", kServe, CallFork, false},
	{"fcntl F_DUPFD_CLOEXEC is served", kServe, CallFcntlDupfd, true},
	{"fcntl F_SETPIPE_SZ is served (a send pipe made anew)", kServe, CallFcntlSetpipe, true},
	{"fcntl F_GETFL is start-up only", kServe, CallFcntlGetfl, false},
	{"fcntl F_SETOWN is start-up only", kServe, CallFcntlSetown, false},
	{"dup3 O_CLOEXEC is served", kServe, CallDup3Cloexec, true},
	{"dup3 without O_CLOEXEC is not", kServe, CallDup3Plain, false},
	{"pipe2 with O_CLOEXEC alone is not served", kServe, CallPipe2Cloexec, false},
	{"pipe2 O_NONBLOCK|O_CLOEXEC is served (a send pipe)", kServe, CallPipe2Send, true},
	{"vmsplice SPLICE_F_NONBLOCK is served", kServe, CallVmspliceNonblock, true},
	{"vmsplice with SPLICE_F_GIFT is not", kServe, CallVmspliceGift, false},
	{"splice MOVE|NONBLOCK is served", kServe, CallSpliceMove, true},
	{"splice MOVE|NONBLOCK|MORE is served", kServe, CallSpliceMore, true},
	{"splice that may block is not", kServe, CallSpliceBlocking, false},
	{"ppoll is served", kServe, CallPpoll, true},
	{"mmap is start-up only", kServe, CallMmapRead, false},
	{"memfd_create is start-up only", kServe, CallMemfdCreate, false},
	{"kill SIGHUP is served", kServe, CallKillSighup, true},
	{"kill SIGIO is served", kServe, CallKillSigio, true},
	{"kill SIGUSR1 is served (a log reopen passed on)", kServe, CallKillSigusr1, true},
	{"kill SIGUSR2 is the user's (an upgrade)", kServe, CallKillSigusr2, false},
	{"kill SIGTERM is the supervisors'", kServe, CallKillSigterm, false},
	{"kill SIGKILL is no one's", kServe, CallKillSigkill, false},
	{"prctl is start-up only", kServe, CallPrctlGetSeccomp, false},
	{"setuid is start-up only", kServe, CallSetuid, false},
	{"getuid is start-up only", kServe, CallGetuid, false},
	{"getsockname is served (a fatal accept4's line)", kServe, CallGetsockname, true},
	{"recvmsg is the supervisor's", kServe, CallRecvmsg, false},
	{"ptrace is in no table", kServe, CallPtrace, false},
};

// Whether this process may install a filter at all (qemu-user refuses PR_GET_SECCOMP).
bool SeccompHere() { return prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0; }

// Forks a child that installs the filter for `allow` (no core file for its SIGSYS) and
// makes call() once, then exits through exit_group (which every filter allows). Returns
// the child's wait status.
int StatusOfCallUnderFilter(uint32_t allow, long (*call)(void))
{
	pid_t pid = fork();
	if (pid == 0) {
		struct rlimit no_core = {0, 0};
		setrlimit(RLIMIT_CORE, &no_core);
		if (sandbox_enter(allow) != SANDBOX_ON)
			sys_exit_group(kNoFilter);
		call();
		sys_exit_group(kCallReturned);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	return status;
}

class SandboxFilter : public testing::TestWithParam<FilterCase> {};

TEST_P(SandboxFilter, AllowsTheListAndKillsTheRest)
{
	if (!SeccompHere())
		GTEST_SKIP() << "no seccomp here (qemu-user refuses it to its guest)";
#ifdef __SANITIZE_ADDRESS__
	GTEST_SKIP() << "the sanitizer runtime makes calls of its own in the child "
			"(sigaltstack, seen with strace -f), which the filter rightly kills; the "
			"plain build runs this";
#endif
	const FilterCase &c = GetParam();
	int status = StatusOfCallUnderFilter(c.allow, c.call);
	if (c.allowed) {
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == kCallReturned)
			<< c.label << ": status " << status;
	} else {
		EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS)
			<< c.label << ": status " << status;
	}
}

INSTANTIATE_TEST_SUITE_P(Table, SandboxFilter, testing::ValuesIn(kFilterCases),
			 LabelName<FilterCase>);

// The program is the prologue, then for each allowed row in table order a test of its
// number whose false branch lands on the next row's test, then the final kill.
TEST(SandboxFilterShape, OneBlockPerAllowedRowInTableOrder)
{
	static struct sock_filter program[SANDBOX_FILTER_MAX];
	for (uint32_t allow : {kServe}) {
		uint32_t n = sandbox_filter(allow, program);
		ASSERT_LE(n, (uint32_t)SANDBOX_FILTER_MAX);
		EXPECT_EQ(program[1].k, (uint32_t)ARCH_AUDIT);
		uint32_t at = SANDBOX_PROLOGUE;
		for (uint32_t i = 0; i < SYS_TABLE_ROWS; i++) {
			if (!(sys_rows[i].when & allow))
				continue;
			ASSERT_LT(at, n) << sys_rows[i].name;
			EXPECT_EQ(program[at].code, BPF_JMP | BPF_JEQ | BPF_K) << sys_rows[i].name;
			EXPECT_EQ(program[at].k, sys_rows[i].nr) << sys_rows[i].name;
			at += 1u + program[at].jf;
		}
		EXPECT_EQ(at, n - 1);
		EXPECT_EQ(program[n - 1].k, (uint32_t)SECCOMP_RET_KILL_PROCESS);
	}
}

// No two rows share a number: each call has one `when` and one argument rule.
TEST(SandboxTable, NumbersAreDistinct)
{
	for (uint32_t i = 0; i < SYS_TABLE_ROWS; i++)
		for (uint32_t j = i + 1; j < SYS_TABLE_ROWS; j++)
			EXPECT_NE(sys_rows[i].nr, sys_rows[j].nr)
				<< sys_rows[i].name << " and " << sys_rows[j].name << " share a number";
}

// Landlock: beneath the directory files read; elsewhere nothing opens.
TEST(SandboxLandlock, ReadsBeneathDirOnly)
{
	char dir[] = "/tmp/sandbox_test_XXXXXX";
	ASSERT_NE(mkdtemp(dir), nullptr);
	std::string inside = std::string(dir) + "/f";
	ASSERT_TRUE(std::ofstream(inside).good());
	pid_t pid = fork();
	if (pid == 0) {
		const char *dirs[] = {dir};
		long abi = sandbox_landlock(dirs, 1);
		if (abi == 0)
			sys_exit_group(kNoFilter);
		if (abi < 0)
			sys_exit_group(1);
		long in = sys_openat(-100, inside.c_str(), O_RDONLY);
		long out = sys_openat(-100, "/etc/hostname", O_RDONLY);
		long write_in = sys_openat(-100, inside.c_str(), O_WRONLY);
		sys_exit_group(in >= 0 && out == -EACCES && write_in == -EACCES ? 0 : 2);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	unlink(inside.c_str());
	rmdir(dir);
	if (WIFEXITED(status) && WEXITSTATUS(status) == kNoFilter)
		GTEST_SKIP() << "this kernel has no Landlock";
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
}

// ---- --user's lookups ----

const char kPasswd[] = "root:x:0:0:root:/root:/bin/bash\n"
		       "broken line\n"
		       "www-data:x:33:33:www-data:/var/www:/usr/sbin/nologin\n"
		       "bad:x:12x:1::/:/bin/sh\n"
		       "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin";
const char kGroup[] = "root:x:0:\nwww-data:x:33:\nnogroup:x:65534:\n";

struct PasswdCase {
	const char *label;
	const char *name;
	int by_uid;
	uint32_t uid_in;
	bool found;
	uint32_t uid, gid;
};

const PasswdCase kPasswdCases[] = {
	{"a name", "www-data", 0, 0, true, 33, 33},
	{"the last line without a newline", "nobody", 0, 0, true, 65534, 65534},
	{"a uid", "", 1, 33, true, 33, 33},
	{"an unknown name", "www", 0, 0, false, 0, 0},
	{"a prefix of a name is not it", "www-dat", 0, 0, false, 0, 0},
	{"a line with a bad uid is skipped", "bad", 0, 0, false, 0, 0},
	{"a line with too few fields is skipped", "broken line", 0, 0, false, 0, 0},
};

TEST(UserDb, PasswdFind)
{
	for (const PasswdCase &c : kPasswdCases) {
		uint32_t uid = c.uid_in, gid = 0;
		EXPECT_EQ(passwd_find(kPasswd, sizeof(kPasswd) - 1, c.name, c.by_uid, &uid, &gid) == 1,
			  c.found)
			<< c.label;
		if (c.found) {
			EXPECT_EQ(uid, c.uid) << c.label;
			EXPECT_EQ(gid, c.gid) << c.label;
		}
	}
}

TEST(UserDb, GroupFind)
{
	uint32_t gid = 0;
	EXPECT_EQ(group_find(kGroup, sizeof(kGroup) - 1, "nogroup", &gid), 1);
	EXPECT_EQ(gid, 65534u);
	EXPECT_EQ(group_find(kGroup, sizeof(kGroup) - 1, "www", &gid), 0);
}

TEST(UserDb, SpecSplitAndNumbers)
{
	char user[USER_DB_NAME_MAX + 1], group[USER_DB_NAME_MAX + 1];
	ASSERT_EQ(user_spec_split("www-data:nogroup", user, group), 1);
	EXPECT_STREQ(user, "www-data");
	EXPECT_STREQ(group, "nogroup");
	ASSERT_EQ(user_spec_split("65534", user, group), 1);
	EXPECT_STREQ(group, "");
	EXPECT_EQ(user_spec_split(":x", user, group), 0);
	EXPECT_EQ(user_spec_split("x:", user, group), 0);
	EXPECT_EQ(user_spec_split(std::string(USER_DB_NAME_MAX + 1, 'a').c_str(), user, group), 0);
	uint32_t id = 0;
	EXPECT_EQ(user_id_number("65534", &id), 1);
	EXPECT_EQ(id, 65534u);
	EXPECT_EQ(user_id_number("4294967295", &id), 1);
	EXPECT_EQ(user_id_number("4294967296", &id), 0);
	EXPECT_EQ(user_id_number("12a", &id), 0);
	EXPECT_EQ(user_id_number("", &id), 0);
}

} // namespace
