/* The --config FILE (see config_file.h). */
#include "common/process/config_file.h"

#include <linux/fcntl.h> /* O_RDONLY, O_CLOEXEC, AT_FDCWD */

#include "common/base/console.h"
#include "common/base/errno_text.h"
#include "common/base/span.h"
#include "common/base/sys.h"
#include "common/base/text_out.h"

static const char *const config_problem_words[] = {
#define CONFIG_PROBLEM_WORDS(id, words) [id] = words,
	FOR_EACH_CONFIG_PROBLEM(CONFIG_PROBLEM_WORDS)
#undef CONFIG_PROBLEM_WORDS
};

/* Whether c is a blank between a name and its value. */
static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* A "site HOST DIR" line's value, HOST then blanks then DIR, made the --site word
 * "HOST=DIR" in place (DIR moved left; NUL-terminated). A value of one word is left as
 * it is (cli_parse_setting refuses it unless it is HOST=DIR already). */
static void site_value_word(char *value)
{
	char *blank = value;
	while (*blank && !is_blank(*blank))
		blank++;
	if (!*blank)
		return;
	char *dir = blank;
	while (is_blank(*dir))
		dir++;
	*blank++ = '=';
	while (*dir)
		*blank++ = *dir++;
	*blank = 0;
}

/* Parses one setting, name (name_len bytes, NUL-terminated) and value (NULL: none), onto
 * opts: into the site section *section names (opts->site[*section - 1]; 0: none yet),
 * and a "site" line opens the next one. Returns 1, or 0 with opts->problem set. */
static int parse_setting(char *name, size_t name_len, char *value, unsigned accept,
			 struct cli_layer *layer, struct cli_options *opts, uint32_t *section)
{
	int site = name_len == sizeof(CLI_SITE_WORD) - 1 && span_eq(name, LITERAL(CLI_SITE_WORD));
	if (site && value)
		site_value_word(value);
	if (*section && !site)
		return cli_parse_site_setting(name, name_len, value, accept, layer, opts,
					      &opts->site[*section - 1]);
	if (!cli_parse_setting(name, name_len, value, accept, layer, opts))
		return 0;
	if (site)
		*section = opts->site_count;
	return 1;
}

/* Parses the line text[0..n) (NUL at text[n], writable) onto opts, in the site section
 * *section says (parse_setting). Returns CONFIG_OK or the problem. */
static enum config_problem parse_line(char *text, size_t n, unsigned accept,
				      struct cli_layer *layer, struct cli_options *opts,
				      uint32_t *section)
{
	if (n > CONFIG_LINE_MAX)
		return CONFIG_LONG_LINE;
	for (size_t i = 0; i < n; i++)
		if (!text[i])
			return CONFIG_NUL;
	while (n && (is_blank(text[n - 1]) || text[n - 1] == '\r'))
		text[--n] = 0;
	while (is_blank(*text))
		text++;
	if (!*text || *text == '#')
		return CONFIG_OK;
	size_t name_len = 0;
	while (text[name_len] && !is_blank(text[name_len]))
		name_len++;
	char *value = text + name_len;
	if (*value) {
		*value++ = 0; /* the name ends: cli_parse_setting may quote it */
		while (is_blank(*value))
			value++;
	}
	if (!parse_setting(text, name_len, *value ? value : 0, accept, layer, opts, section))
		return CONFIG_SETTING;
	return CONFIG_OK;
}

enum config_problem config_parse(char *text, size_t len, unsigned accept,
				 struct cli_layer *layer, struct cli_options *opts,
				 uint32_t *line)
{
	size_t start = 0;
	uint32_t section = 0; /* no site section yet */
	*line = 0;
	while (start < len) {
		size_t end = start;
		while (end < len && text[end] != '\n')
			end++;
		text[end] = 0; /* the line's '\n', or text[len] after the last */
		++*line;
		enum config_problem p =
			parse_line(text + start, end - start, accept, layer, opts, &section);
		if (p != CONFIG_OK)
			return p;
		start = end + 1;
	}
	return CONFIG_OK;
}

/* Writes "<prefix>PATH[:LINE]: " at out (CONFIG_WHERE_MAX bytes); returns its length. */
static size_t put_where(char *out, const char *prefix, const char *path, uint32_t line)
{
	struct text_out o = {out, out + CONFIG_WHERE_MAX};
	char digits[U64_DEC_MAX];
	put_cstr(&o, prefix);
	put_cstr(&o, path);
	if (line) {
		put_cstr(&o, ":");
		put(&o, digits, u64_to_dec(line, digits));
	}
	put_cstr(&o, ": ");
	return (size_t)(o.p - out);
}

/* Writes the one line for problem p of the file path (at line, if not 0; err: the failed
 * call's -errno, or 0), the setting's problem from opts. Returns EXIT_CONFIG. */
static enum exit_code refuse(const char *path, uint32_t line, enum config_problem p, long err,
			     const struct cli_options *opts, const char *prefix,
			     const char *suffix)
{
	char where[CONFIG_WHERE_MAX];
	char text[CLI_LINE_MAX + CONFIG_WHERE_MAX];
	size_t where_len = put_where(where, prefix, path, line);
	struct text_out o = {text, text + sizeof(text)};
	if (p == CONFIG_SETTING) { /* without its "\n" */
		o.p += cli_format_setting_problem(text, sizeof(text), opts, where, where_len) - 1;
	} else {
		put_cstr(&o, "apollod: ");
		put(&o, where, where_len);
		put_cstr(&o, config_problem_words[p]);
	}
	if (err) {
		char reason[ERRNO_TEXT_MAX];
		put_cstr(&o, ": ");
		put(&o, reason, errno_text(err, reason));
	}
	put_cstr(&o, suffix);
	put_cstr(&o, "\n");
	write_stderr(text, (size_t)(o.p - text));
	return EXIT_CONFIG;
}

/* Marks where file's lines end (config_where counts them). */
static void mark_line_ends(struct config_file *file)
{
	for (size_t i = 0; i < sizeof(file->line_ends); i++)
		file->line_ends[i] = 0;
	for (size_t i = 0; i < file->len; i++)
		if (file->text[i] == '\n')
			file->line_ends[i / CONFIG_BITS_PER_BYTE] |=
				(uint8_t)(1u << (i % CONFIG_BITS_PER_BYTE));
}

/* Reads path into *file. Returns CONFIG_OK, or the problem with *err set. */
static enum config_problem read_file(struct config_file *file, const char *path, long *err)
{
	long fd = sys_openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	*err = 0;
	file->len = 0;
	file->path = path;
	if (sys_is_error(fd)) {
		*err = fd;
		return CONFIG_CANNOT_OPEN;
	}
	long n = sys_read_full((int)fd, file->text, CONFIG_FILE_MAX + 1);
	sys_close((int)fd);
	if (sys_is_error(n)) {
		*err = n;
		return CONFIG_CANNOT_READ;
	}
	if ((size_t)n > CONFIG_FILE_MAX)
		return CONFIG_TOO_BIG;
	file->len = (size_t)n;
	mark_line_ends(file);
	return CONFIG_OK;
}

enum exit_code config_load(struct config_file *file, const char *path, int argc, char **argv,
			   unsigned accept, struct cli_options *opts, const char *prefix,
			   const char *suffix)
{
	long err;
	uint32_t line = 0;
	struct cli_layer file_layer = {0}, command_layer = {0};
	enum config_problem p = read_file(file, path, &err);
	cli_defaults(opts);
	if (p == CONFIG_OK)
		p = config_parse(file->text, file->len, accept, &file_layer, opts, &line);
	if (p != CONFIG_OK)
		return refuse(path, line, p, err, opts, prefix, suffix);
	/* Valid alone, so valid over the file: its repeatable flags start afresh. */
	cli_parse_layer(argc, argv, accept, &command_layer, opts);
	/* The file's --listen lines and --admin-listen may together pass the limit. */
	if (!cli_finish(opts))
		return refuse(path, 0, CONFIG_SETTING, 0, opts, prefix, suffix);
	return EXIT_OK;
}

size_t config_where(const struct config_file *file, const char *word, char *out)
{
	if (!word || word < file->text || word >= file->text + file->len)
		return 0;
	uint32_t line = 1;
	for (size_t i = 0; i < (size_t)(word - file->text); i++)
		line += (file->line_ends[i / CONFIG_BITS_PER_BYTE] >> (i % CONFIG_BITS_PER_BYTE)) & 1u;
	return put_where(out, "", file->path, line);
}
