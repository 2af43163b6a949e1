/* The seccomp filter from the syscall table, Landlock and --user (see sandbox.h). */
#include "common/process/sandbox.h"

#include <linux/audit.h>   /* AUDIT_ARCH_* (ARCH_AUDIT) */
#include <linux/fcntl.h>   /* AT_FDCWD, O_PATH */
#include <linux/seccomp.h> /* struct seccomp_data, SECCOMP_* */

#include "common/base/console.h"
#include "common/base/span.h"
#include "common/base/sys.h"
#include "common/process/user_db.h"

STATIC_ASSERT(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	      "an argument's low 32 bits are at its offset in struct seccomp_data");
#define ARG_LOW(i) (__builtin_offsetof(struct seccomp_data, args) + (i) * sizeof(uint64_t))

/* The syscall table as data (sys_table.h), the rows the filter is built from. */
#define SYS_TABLE_DATA(name, nr, when, args) {#name, (nr), (when), args},
const struct sys_row sys_rows[SYS_TABLE_ROWS] = {SYS_TABLE(SYS_TABLE_DATA)};

/* Appends one instruction. */
static void emit(struct sock_filter *out, uint32_t *n, uint16_t code, uint8_t jt, uint8_t jf,
		 uint32_t k)
{
	out[*n] = (struct sock_filter){code, jt, jf, k};
	(*n)++;
}

/* One row's test: "nr is row's number" then its block (an allow, or the argument's checks
 * ending in a kill and an allow); a different nr jumps over the block. */
static void emit_row(struct sock_filter *out, uint32_t *n, const struct sys_row *row)
{
	const struct sys_arg_rule *a = &row->args;
	/* The block's length: an allow; or the load, the tests (one per value, or the one
	 * JSET), a kill and an allow. */
	uint32_t tests = a->kind == SYS_ARG_KIND_IN ? a->count : 1;
	uint8_t block = (uint8_t)(a->kind == SYS_ARG_KIND_ANY ? 1 : 1 + tests + 2);
	emit(out, n, BPF_JMP | BPF_JEQ | BPF_K, 0, block, row->nr);
	if (a->kind == SYS_ARG_KIND_ANY) {
		emit(out, n, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW);
		return;
	}
	emit(out, n, BPF_LD | BPF_W | BPF_ABS, 0, 0, (uint32_t)ARG_LOW(a->arg));
	if (a->kind == SYS_ARG_KIND_IN) /* value i matches: jump over the rest and the kill */
		for (uint32_t i = 0; i < a->count; i++)
			emit(out, n, BPF_JMP | BPF_JEQ | BPF_K, (uint8_t)(a->count - i), 0,
			     a->values[i]);
	else /* a bit of the mask set: fall into the kill */
		emit(out, n, BPF_JMP | BPF_JSET | BPF_K, 0, 1, a->values[0]);
	emit(out, n, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_KILL_PROCESS);
	emit(out, n, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW);
}

uint32_t sandbox_filter(uint32_t allow, struct sock_filter *out)
{
	uint32_t n = 0;
	/* Another architecture's numbers mean other calls (an x86_64 process may make i386
	 * or x32 calls): kill. x32's numbers (bit 30 set) match no row either. */
	emit(out, &n, BPF_LD | BPF_W | BPF_ABS, 0, 0, __builtin_offsetof(struct seccomp_data, arch));
	emit(out, &n, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, ARCH_AUDIT);
	emit(out, &n, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_KILL_PROCESS);
	emit(out, &n, BPF_LD | BPF_W | BPF_ABS, 0, 0, __builtin_offsetof(struct seccomp_data, nr));
	for (uint32_t i = 0; i < SYS_TABLE_ROWS; i++)
		if (sys_rows[i].when & allow)
			emit_row(out, &n, &sys_rows[i]);
	emit(out, &n, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_KILL_PROCESS);
	return n;
}

#define USER_DB_FILE_MAX (256u * 1024u) /* /etc/passwd or /etc/group: larger is refused */

/* The sandbox's storage, static: too large for a stack frame, and used once at start-up
 * (pages never touched cost nothing). */
struct sandbox_unit {
	struct sock_filter program[SANDBOX_FILTER_MAX]; /* the filter being installed */
	char user_db_text[USER_DB_FILE_MAX];            /* /etc/passwd or /etc/group */
};
static struct sandbox_unit sandbox;

long sandbox_enter(uint32_t allow)
{
	long mode = sys_prctl(SYS_PR_GET_SECCOMP, 0, 0);
	if (mode == -EINVAL)
		return SANDBOX_ABSENT;
	if (sys_is_error(mode))
		return mode;
	/* Without CAP_SYS_ADMIN a filter needs no_new_privs (seccomp(2)); with it, too: no
	 * exec may gain privileges the filter did not expect. */
	long r = sys_prctl(SYS_PR_SET_NO_NEW_PRIVS, 1, 0);
	if (sys_is_error(r))
		return r;
	struct sock_fprog prog = {(unsigned short)sandbox_filter(allow, sandbox.program),
				  sandbox.program};
	r = sys_prctl(SYS_PR_SET_SECCOMP, SECCOMP_MODE_FILTER, (unsigned long)&prog);
	return sys_is_error(r) ? r : SANDBOX_ON;
}

/* Landlock's UAPI (include/uapi/linux/landlock.h), named here so an older header does
 * not limit the rights this binary asks for. */
#define LL_CREATE_RULESET_VERSION 1u
#define LL_RULE_PATH_BENEATH 1
#define LL_FS_READ_FILE (1ull << 2)
#define LL_FS_READ_DIR (1ull << 3)
#define LL_FS_ABI1 ((1ull << 13) - 1) /* execute .. make_sym: every right of ABI 1 */
#define LL_FS_REFER (1ull << 13)      /* ABI 2 */
#define LL_FS_TRUNCATE (1ull << 14)   /* ABI 3 */
#define LL_FS_IOCTL_DEV (1ull << 15)  /* ABI 5 */
#define LL_ABI_REFER 2
#define LL_ABI_TRUNCATE 3
#define LL_ABI_IOCTL_DEV 5
#define LL_RULESET_ATTR_FS_SIZE 8     /* handled_access_fs alone: ABI 1's struct */
struct ll_path_beneath {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));
#define LL_PATH_BENEATH_SIZE 12
STATIC_ASSERT(sizeof(struct ll_path_beneath) == LL_PATH_BENEATH_SIZE, "the UAPI's packing");

/* Lets ruleset read beneath dir. Returns 0 or -errno. */
static long landlock_allow(long ruleset, const char *dir)
{
	long dir_fd = sys_openat(AT_FDCWD, dir, O_PATH | O_CLOEXEC);
	long r = dir_fd;
	if (!sys_is_error(dir_fd)) {
		struct ll_path_beneath rule = {LL_FS_READ_FILE | LL_FS_READ_DIR, (int32_t)dir_fd};
		r = sys_landlock_add_rule((int)ruleset, LL_RULE_PATH_BENEATH, &rule);
		sys_close((int)dir_fd);
	}
	return sys_is_error(r) ? r : 0;
}

long sandbox_landlock(const char *const *dirs, uint32_t n)
{
	long abi = sys_landlock_create_ruleset(0, 0, LL_CREATE_RULESET_VERSION);
	if (abi == -ENOSYS || abi == -EOPNOTSUPP)
		return 0;
	if (sys_is_error(abi))
		return abi;
	uint64_t handled = LL_FS_ABI1 | (abi >= LL_ABI_REFER ? LL_FS_REFER : 0) |
			   (abi >= LL_ABI_TRUNCATE ? LL_FS_TRUNCATE : 0) |
			   (abi >= LL_ABI_IOCTL_DEV ? LL_FS_IOCTL_DEV : 0);
	long ruleset = sys_landlock_create_ruleset(&handled, LL_RULESET_ATTR_FS_SIZE, 0);
	if (sys_is_error(ruleset))
		return ruleset;
	long r = 0;
	for (uint32_t i = 0; i < n && !sys_is_error(r); i++)
		r = landlock_allow(ruleset, dirs[i]);
	if (!sys_is_error(r))
		r = sys_prctl(SYS_PR_SET_NO_NEW_PRIVS, 1, 0);
	if (!sys_is_error(r))
		r = sys_landlock_restrict_self((int)ruleset);
	sys_close((int)ruleset);
	return sys_is_error(r) ? r : abi;
}

#define ROOT_UID 0

/* Reads path into sandbox.user_db_text. Returns its length, or -errno (-EFBIG: too large). */
static long user_db_read(const char *path)
{
	long fd = sys_openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (sys_is_error(fd))
		return fd;
	long n = sys_read_full((int)fd, sandbox.user_db_text, USER_DB_FILE_MAX);
	char more;
	if (n == (long)USER_DB_FILE_MAX && sys_read((int)fd, &more, 1) > 0)
		n = -EFBIG;
	sys_close((int)fd);
	return n;
}

/* Writes "apollod: --user 'SPEC': WHY\n". Returns EXIT_USER. */
static enum exit_code user_refused(const char *spec, const char *why)
{
	write_stderr(LITERAL("apollod: --user '"));
	write_stderr(spec, cstr_len(spec));
	write_stderr(LITERAL("': "));
	write_stderr(why, cstr_len(why));
	write_stderr(LITERAL("\n"));
	return EXIT_USER;
}

/* --user's names as ids: the user by number or /etc/passwd; the group by number,
 * /etc/group, or else the user's primary group in /etc/passwd. Returns NULL, or why not. */
static const char *user_ids(const char *spec, uint32_t *uid, uint32_t *gid)
{
	char user[USER_DB_NAME_MAX + 1], group[USER_DB_NAME_MAX + 1];
	if (!user_spec_split(spec, user, group))
		return "not USER or USER:GROUP";
	int user_numeric = user_id_number(user, uid);
	int group_numeric = group[0] && user_id_number(group, gid);
	if (!user_numeric || !group[0]) {
		long n = user_db_read("/etc/passwd");
		if (sys_is_error(n))
			return "/etc/passwd cannot be read (numbers need no file: UID:GID)";
		if (!passwd_find(sandbox.user_db_text, (size_t)n, user, user_numeric, uid, gid))
			return user_numeric ? "no such uid in /etc/passwd to take its group from "
					      "(give UID:GID)"
					    : "no such user in /etc/passwd";
	}
	if (group[0] && !group_numeric) {
		long n = user_db_read("/etc/group");
		if (sys_is_error(n))
			return "/etc/group cannot be read (numbers need no file: UID:GID)";
		if (!group_find(sandbox.user_db_text, (size_t)n, group, gid))
			return "no such group in /etc/group";
	}
	return 0;
}

/* --user's ids in *uid, *gid, and whether this process may become them. Returns NULL,
 * or why not. */
static const char *user_checked(const char *spec, uint32_t *uid, uint32_t *gid)
{
	const char *why = user_ids(spec, uid, gid);
	if (!why && sys_getuid() != ROOT_UID && (sys_getuid() != *uid || sys_getgid() != *gid))
		why = "only root can change its user";
	return why;
}

enum exit_code sandbox_user_check(const char *spec)
{
	uint32_t uid = 0, gid = 0;
	const char *why = user_checked(spec, &uid, &gid);
	return why ? user_refused(spec, why) : EXIT_OK;
}

enum exit_code sandbox_user(const char *spec)
{
	uint32_t uid = 0, gid = 0;
	const char *why = user_checked(spec, &uid, &gid);
	if (why)
		return user_refused(spec, why);
	if (sys_getuid() == uid && sys_getgid() == gid)
		return EXIT_OK; /* already that user: a reload's new image, or started so */
	/* Supplementary groups first (root's would stay otherwise), then the gid while the
	 * uid is still root's, then the uid: in the other order setgid is refused. */
	if (sys_is_error(sys_setgroups(1, &gid)))
		return user_refused(spec, "setgroups refused");
	if (sys_is_error(sys_setgid(gid)))
		return user_refused(spec, "setgid refused");
	if (sys_is_error(sys_setuid(uid)))
		return user_refused(spec, "setuid refused");
	return EXIT_OK;
}
