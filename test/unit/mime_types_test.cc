// Content-Type by extension (common/answer/mime_types.h): the types the issue names, case
// folding, what counts as the extension, and charset=utf-8 on every text type.
#include <string>

#include <gtest/gtest.h>

#include "common/answer/mime_types.h"

namespace {

std::string TypeOf(const std::string &name)
{
	struct text_span t;
	mime_type_of(name.data(), name.size(), &t);
	return std::string(t.text, t.len);
}

struct TypeRow {
	const char *name;
	const char *type;
};

const TypeRow kRows[] = {
	{"index.html", "text/html; charset=utf-8"},
	{"a/b/STYLE.CSS", "text/css; charset=utf-8"},
	{"app.js", "text/javascript; charset=utf-8"},
	{"mod.mjs", "text/javascript; charset=utf-8"},
	{"app.js.map", "application/json"},
	{"site.webmanifest", "application/manifest+json"},
	{"data.csv", "text/csv; charset=utf-8"},
	{"f.woff", "font/woff"},
	{"f.woff2", "font/woff2"},
	{"f.ttf", "font/ttf"},
	{"f.otf", "font/otf"},
	{"v.mp4", "video/mp4"},
	{"v.webm", "video/webm"},
	{"a.mp3", "audio/mpeg"},
	{"a.ogg", "audio/ogg"},
	{"i.avif", "image/avif"},
	{"i.webp", "image/webp"},
	{"z.zip", "application/zip"},
	{"w.wasm", "application/wasm"},
	{"d.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
	{"no_extension", "application/octet-stream"},
	{"v1.0/readme", "application/octet-stream"},
	{"trailing.", "application/octet-stream"},
	{".env", "application/octet-stream"},
	{"unknown.xyz", "application/octet-stream"},
	{"style.css.gz", "application/octet-stream"},
};

TEST(MimeTypesTest, ByExtension)
{
	for (const TypeRow &row : kRows)
		EXPECT_EQ(TypeOf(row.name), row.type) << row.name;
}

// Every text/ type in the table says its charset; no other type does.
TEST(MimeTypesTest, TextTypesCarryCharset)
{
#define CHECK_CHARSET(ext, type)                                                     \
	{                                                                            \
		std::string t = type;                                                \
		bool text = t.compare(0, 5, "text/") == 0;                           \
		bool charset = t.size() > 15 && t.compare(t.size() - 15, 15, "; charset=utf-8") == 0; \
		EXPECT_EQ(text, charset) << ext << ": " << t;                        \
		EXPECT_EQ(TypeOf(std::string("x.") + ext), t) << ext;                \
	}
	FOR_EACH_CONTENT_TYPE(CHECK_CHARSET)
#undef CHECK_CHARSET
}

} // namespace
