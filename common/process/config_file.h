/* The --config FILE (BEHAVIOUR 2.1): one setting per line, named as a long flag without
 * its dashes, parsed by the command line's own flag table (cli.h), so every flag is a
 * setting. Read at start-up, and again by the supervisor on a reload, with raw syscalls
 * into the caller's static buffer of CONFIG_FILE_MAX bytes: no heap, nothing while
 * serving, and no state of its own. */
#ifndef APOLLOD_COMMON_PROCESS_CONFIG_FILE_H
#define APOLLOD_COMMON_PROCESS_CONFIG_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "common/base/exit_codes.h"
#include "common/base/static_assert.h"
#include "common/process/cli.h"

APOLLOD_EXTERN_C_BEGIN

#define CONFIG_FILE_MAX (64u * 1024u) /* bytes of the file: 32 --header-for lines take 8 KiB */
#define CONFIG_LINE_MAX 4096u         /* bytes of one line, its end not counted */
STATIC_ASSERT(CONFIG_LINE_MAX <= CONFIG_FILE_MAX, "a line fits the file");

/* What is wrong with a file's text (besides what cli_parse_setting reports in opts). */
#define FOR_EACH_CONFIG_PROBLEM(X)                                                     \
	X(CONFIG_OK, "")                                                               \
	X(CONFIG_SETTING, "")  /* cli_parse_setting refused the line: opts->problem */ \
	X(CONFIG_LONG_LINE, "line longer than 4096 bytes")                             \
	X(CONFIG_NUL, "a NUL byte in the line")                                        \
	X(CONFIG_TOO_BIG, "larger than 65536 bytes")                                   \
	X(CONFIG_CANNOT_OPEN, "cannot open")                                           \
	X(CONFIG_CANNOT_READ, "cannot read")
enum config_problem {
#define CONFIG_PROBLEM_ENUM(id, words) id,
	FOR_EACH_CONFIG_PROBLEM(CONFIG_PROBLEM_ENUM)
#undef CONFIG_PROBLEM_ENUM
};
STATIC_ASSERT(CONFIG_LINE_MAX == 4096 && CONFIG_FILE_MAX == 65536,
	      "the limits the problem words name");

/* Parses text[0..len) (NULs written into it: values point there and must outlive opts) as
 * one layer of settings onto opts: a line is blanks, a name, one run of blanks, the value
 * to the line's end (trailing blanks and a CR dropped); blank lines and lines whose first
 * byte past the blanks is '#' say nothing. Returns CONFIG_OK, or the problem with *line
 * (counted from 1) saying where. */
enum config_problem config_parse(char *text, size_t len, unsigned accept,
				 struct cli_layer *layer, struct cli_options *opts,
				 uint32_t *line);

#define CONFIG_BITS_PER_BYTE 8u
/* One read of the file: the caller's (static: 72 KiB), kept while the options that point
 * into it are used. The process's own settings and the supervisor's check of a reload
 * each have one, so the settings it started with stay as they were. */
struct config_file {
	char text[CONFIG_FILE_MAX + 1]; /* one byte more than allowed: a file too big shows */
	size_t len;                     /* bytes read */
	const char *path;               /* the --config word */
	/* bit i: text[i] was '\n' (config_where counts them) */
	uint8_t line_ends[CONFIG_FILE_MAX / CONFIG_BITS_PER_BYTE + 1];
};

/* The settings of the --config file path (read into *file), with the command line argv
 * over them (BEHAVIOUR 2.1), into opts, cli_finish'ed. On an error writes one line
 * "apollod: <prefix>PATH[:LINE]: <problem><suffix>\n" and returns EXIT_CONFIG, else
 * EXIT_OK. argv was parsed alone before, so its words are known to be valid. */
enum exit_code config_load(struct config_file *file, const char *path, int argc, char **argv,
			   unsigned accept, struct cli_options *opts, const char *prefix,
			   const char *suffix);

/* Writes "PATH:LINE: " for a word that points into file's text (at least CONFIG_WHERE_MAX
 * bytes at out) and returns its length, or 0 for any other word. */
#define CONFIG_WHERE_MAX 512
size_t config_where(const struct config_file *file, const char *word, char *out);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_PROCESS_CONFIG_FILE_H */
