/* Content-Type by file extension for --root: the web types of nginx's conf/mime.types,
 * plus the few it lacks that sites ship (ttf, otf, webmanifest, csv, map, md, vtt, ics,
 * glb, yaml, opus, flac), and the extensions a --mime-types FILE adds or overrides
 * (BEHAVIOUR 10.15), read once at start-up into the module's static table. Text types
 * carry "; charset=utf-8". Pure but for mime_types_load. */
#ifndef APOLLOD_COMMON_MIME_TYPES_H
#define APOLLOD_COMMON_MIME_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "common/base/exit_codes.h"

#include "common/base/span.h"
#include "common/base/static_assert.h"
#include "common/http/url_path.h"

APOLLOD_EXTERN_C_BEGIN

#define CONTENT_TYPE_DEFAULT "application/octet-stream"
#define CONTENT_TYPE_MAX 80 /* longest type in the table (docx is 71 bytes) */
#define TEXT_UTF8(type) type "; charset=utf-8"

/* X(extension, Content-Type), extensions matched ignoring ASCII case. */
#define FOR_EACH_CONTENT_TYPE(X)                                                        \
	X("html", TEXT_UTF8("text/html")) X("htm", TEXT_UTF8("text/html"))              \
	X("shtml", TEXT_UTF8("text/html")) X("css", TEXT_UTF8("text/css"))              \
	X("xml", TEXT_UTF8("text/xml")) X("txt", TEXT_UTF8("text/plain"))               \
	X("js", TEXT_UTF8("text/javascript")) X("mjs", TEXT_UTF8("text/javascript"))    \
	X("csv", TEXT_UTF8("text/csv")) X("md", TEXT_UTF8("text/markdown"))             \
	X("mml", TEXT_UTF8("text/mathml")) X("htc", TEXT_UTF8("text/x-component"))      \
	X("json", "application/json") X("map", "application/json")                      \
	X("webmanifest", "application/manifest+json")                                   \
	X("atom", "application/atom+xml") X("rss", "application/rss+xml")               \
	X("xhtml", "application/xhtml+xml") X("wasm", "application/wasm")               \
	X("pdf", "application/pdf") X("rtf", "application/rtf")                         \
	X("ps", "application/postscript") X("eps", "application/postscript")            \
	X("zip", "application/zip") X("7z", "application/x-7z-compressed")              \
	X("rar", "application/x-rar-compressed") X("jar", "application/java-archive")   \
	X("doc", "application/msword") X("xls", "application/vnd.ms-excel")             \
	X("ppt", "application/vnd.ms-powerpoint")                                       \
	X("docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document") \
	X("xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")  \
	X("pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation") \
	X("odt", "application/vnd.oasis.opendocument.text")                             \
	X("ods", "application/vnd.oasis.opendocument.spreadsheet")                      \
	X("epub", "application/epub+zip") X("m3u8", "application/vnd.apple.mpegurl")    \
	X("eot", "application/vnd.ms-fontobject")                                       \
	X("woff", "font/woff") X("woff2", "font/woff2")                                 \
	X("ttf", "font/ttf") X("otf", "font/otf")                                       \
	X("png", "image/png") X("gif", "image/gif") X("jpg", "image/jpeg")              \
	X("jpeg", "image/jpeg") X("webp", "image/webp") X("avif", "image/avif")         \
	X("svg", "image/svg+xml") X("svgz", "image/svg+xml") X("ico", "image/x-icon")   \
	X("bmp", "image/x-ms-bmp") X("tif", "image/tiff") X("tiff", "image/tiff")       \
	X("mp3", "audio/mpeg") X("ogg", "audio/ogg") X("m4a", "audio/x-m4a")            \
	X("mid", "audio/midi") X("midi", "audio/midi") X("wav", "audio/wav")            \
	X("opus", "audio/ogg") X("flac", "audio/flac")                                  \
	X("vtt", TEXT_UTF8("text/vtt")) X("ics", TEXT_UTF8("text/calendar"))            \
	X("glb", "model/gltf-binary") X("yaml", "application/yaml")                     \
	X("yml", "application/yaml")                                                    \
	X("mp4", "video/mp4") X("webm", "video/webm") X("mpeg", "video/mpeg")           \
	X("mpg", "video/mpeg") X("mov", "video/quicktime") X("m4v", "video/x-m4v")      \
	X("ts", "video/mp2t") X("3gp", "video/3gpp") X("flv", "video/x-flv")            \
	X("avi", "video/x-msvideo") X("wmv", "video/x-ms-wmv")

/* The types whose files get a gzip representation at load (BEHAVIOUR 10.10), besides
 * every text/ type and every +json or +xml one: the table's and the usual
 * --mime-types FILE's other names of them. Compared without parameters, ASCII case
 * ignored. Images, audio, video, archives and woff/woff2 are compressed already. */
#define FOR_EACH_COMPRESSIBLE_TYPE(X)                                                   \
	X("application/json") X("application/javascript") X("application/x-javascript") \
	X("application/ecmascript") X("application/xml") X("application/wasm")          \
	X("application/yaml") X("application/rtf") X("application/postscript")          \
	X("application/x-sh") X("application/vnd.ms-fontobject") X("font/ttf")          \
	X("font/otf") X("image/x-icon") X("image/x-ms-bmp") X("image/bmp")

/* Limits of a --mime-types FILE. Past any of them the file is refused at start-up. */
#define MIME_FILE_MAX (128u * 1024u)  /* its bytes: Debian's /etc/mime.types is 74 KB */
#define MIME_ENTRIES_MAX 4096u        /* extensions it names (Debian's: 1552) */
#define MIME_TEXT_TYPES_MAX (16u * 1024u) /* bytes of text/ types with the charset added */
#define MIME_EXT_MAX 32u              /* bytes of one extension */
STATIC_ASSERT(MIME_EXT_MAX <= UINT8_MAX && CONTENT_TYPE_MAX <= UINT8_MAX, "lengths in a byte");

/* One extension a --mime-types FILE names, and its Content-Type. */
struct mime_entry {
	const char *ext;  /* in the file's text */
	const char *type; /* in the file's text, or (text/ types) in text_types */
	uint8_t ext_len;
	uint8_t type_len;
};

/* What a --mime-types FILE says; it borrows the file's text. */
struct mime_table {
	uint32_t count;      /* entries used, in the file's order */
	uint32_t text_used;  /* bytes of text_types used */
	struct mime_entry entry[MIME_ENTRIES_MAX];
	char text_types[MIME_TEXT_TYPES_MAX]; /* "text/x; charset=utf-8", packed */
};

/* Why a --mime-types FILE is refused (one list: the enum and the words of the error). */
#define FOR_EACH_MIME_PROBLEM(X)                                                         \
	X(MIME_OK, "ok")                                                                 \
	X(MIME_BAD_TYPE, "not a type/subtype of token characters")                       \
	X(MIME_BAD_EXTENSION, "an extension holds '/' or a byte that is no token character") \
	X(MIME_TYPE_TOO_LONG, "a type longer than 80 bytes (with charset=utf-8 for text/)") \
	X(MIME_EXTENSION_TOO_LONG, "an extension longer than 32 bytes")                  \
	X(MIME_TOO_MANY, "more than 4096 extensions")                                    \
	X(MIME_TEXT_TYPES_FULL, "more than 16384 bytes of text/ types")                  \
	X(MIME_FILE_TOO_BIG, "larger than 131072 bytes")                                 \
	X(MIME_CANNOT_OPEN, "cannot open")                                               \
	X(MIME_CANNOT_READ, "cannot read")
enum mime_problem {
#define MIME_PROBLEM_ENUM(id, words) id,
	FOR_EACH_MIME_PROBLEM(MIME_PROBLEM_ENUM)
#undef MIME_PROBLEM_ENUM
};
STATIC_ASSERT(CONTENT_TYPE_MAX == 80 && MIME_EXT_MAX == 32 && MIME_ENTRIES_MAX == 4096 &&
		      MIME_TEXT_TYPES_MAX == 16384 && MIME_FILE_MAX == 131072,
	      "the limits the problem words name");

/* Reads text[0..len) in the /etc/mime.types format into *t (emptied first): lines of a
 * type (type/subtype, tokens: no parameters), then zero or more extensions (tokens
 * without '/'), separated by spaces or tabs (a CR before the LF is a space); blank
 * lines; a '#' where a word would start begins a comment to the end of the line. A
 * text/ type gets "; charset=utf-8" (copied to text_types); others point into text. A
 * type's length counts only when it names an extension. Returns MIME_OK (*line: the
 * lines read), or the problem with *line set to its 1-based line number. Pure: writes
 * only *t and *line. */
enum mime_problem mime_table_parse(const char *text, size_t len, struct mime_table *t,
				   uint32_t *line);

/* Sets *type to the type t gives the extension ext[0..len) (ASCII case ignored; the
 * last line naming it wins). Returns 1, or 0 when t does not name it. Pure. */
int mime_table_find(const struct mime_table *t, const char *ext, size_t len,
		    struct text_span *type);

/* Reads the --mime-types FILE at path (NUL-terminated) into the module's table, which
 * mime_type_of consults before FOR_EACH_CONTENT_TYPE. Start-up only, before any file is
 * loaded. Returns EXIT_OK, or EXIT_USAGE after one stderr line
 * "apollod: --mime-types PATH[:LINE]: <reason>\n". */
enum exit_code mime_types_load(const char *path);

/* name_extension (url_path.h) finds the extension the table is consulted with. */

/* Sets *type to the Content-Type of the name[0..len) from its extension (what follows the
 * last '.' of the last path segment): a --mime-types FILE's, else the table's, else
 * CONTENT_TYPE_DEFAULT when there is none or it is in neither. Reads only name[0..len)
 * and the tables. */
void mime_type_of(const char *name, size_t len, struct text_span *type);

/* Returns 1 when a file served as Content-Type type[0..len) (parameters allowed, e.g.
 * "; charset=utf-8") is worth a gzip representation: text/, +json, +xml, or
 * FOR_EACH_COMPRESSIBLE_TYPE. 0 otherwise. Pure. */
int type_is_compressible(const char *type, size_t len);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_MIME_TYPES_H */
