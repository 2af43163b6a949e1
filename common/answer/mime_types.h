/* Content-Type by file extension for --root: the web types of nginx's conf/mime.types,
 * plus the few it lacks that sites ship (ttf, otf, webmanifest, csv, map, md). Text
 * types carry "; charset=utf-8". Pure: no syscalls. */
#ifndef APOLLOD_COMMON_MIME_TYPES_H
#define APOLLOD_COMMON_MIME_TYPES_H

#include <stddef.h>

#include "common/base/span.h"
#include "common/base/static_assert.h"

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
	X("mp4", "video/mp4") X("webm", "video/webm") X("mpeg", "video/mpeg")           \
	X("mpg", "video/mpeg") X("mov", "video/quicktime") X("m4v", "video/x-m4v")      \
	X("ts", "video/mp2t") X("3gp", "video/3gpp") X("flv", "video/x-flv")            \
	X("avi", "video/x-msvideo") X("wmv", "video/x-ms-wmv")

/* Sets *type to the Content-Type of the name[0..len) from its extension (what follows the
 * last '.' of the last path segment), or CONTENT_TYPE_DEFAULT when there is none or it is
 * not in the table. Reads only name[0..len). */
void mime_type_of(const char *name, size_t len, struct text_span *type);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_MIME_TYPES_H */
