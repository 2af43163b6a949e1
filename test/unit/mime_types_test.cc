// Content-Type by extension (common/answer/mime_types.h): the types the issue names, case
// folding, what counts as the extension, and charset=utf-8 on every text type.
#include <string.h>

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test/unit/label_name.h"

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
	{"c.vtt", "text/vtt; charset=utf-8"},
	{"e.ICS", "text/calendar; charset=utf-8"},
	{"m.glb", "model/gltf-binary"},
	{"c.yaml", "application/yaml"},
	{"c.yml", "application/yaml"},
	{"a.opus", "audio/ogg"},
	{"a.flac", "audio/flac"},
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

// ---- --mime-types FILE: mime_table_parse and mime_table_find ----

struct ParseCase {
	const char *label;
	std::string text;
	enum mime_problem problem;
	uint32_t line;                                            // of the problem
	std::vector<std::pair<std::string, std::string>> lookups; // ext -> type ("" = none)
};

const ParseCase kParseCases[] = {
	{"empty file", "", MIME_OK, 0, {{"txt", ""}}},
	{"one line", "text/plain txt\n", MIME_OK, 1, {{"txt", "text/plain; charset=utf-8"}}},
	{"no final newline", "image/png png", MIME_OK, 1, {{"png", "image/png"}}},
	{"comments and blank lines", "# a comment\n\n   \n\t# indented\nimage/x a b\n", MIME_OK, 5,
	 {{"a", "image/x"}, {"b", "image/x"}, {"comment", ""}}},
	{"comment after the words", "image/x a # b c\n", MIME_OK, 1, {{"a", "image/x"}, {"b", ""}}},
	{"tabs, spaces and CRLF", "  image/x\t\ta \t b\r\n", MIME_OK, 1,
	 {{"a", "image/x"}, {"b", "image/x"}}},
	{"type without extensions", "image/x\nimage/y y\n", MIME_OK, 2, {{"y", "image/y"}}},
	{"case ignored, later line wins", "a/one ext\na/two EXT\n", MIME_OK, 2,
	 {{"ext", "a/two"}, {"Ext", "a/two"}}},
	{"a parameter is refused", "text/x;charset=latin1 t\n", MIME_BAD_TYPE, 1, {}},
	{"Text/ gains the charset", "Text/X t\n", MIME_OK, 1, {{"t", "Text/X; charset=utf-8"}}},
	{"no slash", "plain txt\n", MIME_BAD_TYPE, 1, {}},
	{"empty type", "/x a\n", MIME_BAD_TYPE, 1, {}},
	{"empty subtype", "a/ a\n", MIME_BAD_TYPE, 1, {}},
	{"two slashes", "a/b/c a\n", MIME_BAD_TYPE, 1, {}},
	{"control byte in a type", std::string("ok/a a\nim\x01ge/x b\n"), MIME_BAD_TYPE, 2, {}},
	{"slash in an extension", "a/b c/d\n", MIME_BAD_EXTENSION, 1, {}},
	{"NUL in an extension", std::string("a/b c\0d\n", 9), MIME_BAD_EXTENSION, 1, {}},
	{"extension of 32 bytes", "a/b " + std::string(32, 'e') + "\n", MIME_OK, 1,
	 {{std::string(32, 'e'), "a/b"}}},
	{"extension of 33 bytes", "a/b " + std::string(33, 'e') + "\n", MIME_EXTENSION_TOO_LONG, 1,
	 {}},
	{"type of 80 bytes", "a/" + std::string(78, 't') + " x\n", MIME_OK, 1,
	 {{"x", "a/" + std::string(78, 't')}}},
	{"type of 81 bytes", "a/" + std::string(79, 't') + " x\n", MIME_TYPE_TOO_LONG, 1, {}},
	{"type of 81 bytes naming no extension", "a/" + std::string(79, 't') + "\n", MIME_OK, 1, {}},
	{"bad type naming no extension", "plain # a comment\n", MIME_BAD_TYPE, 1, {}},
	{"text type of 65 bytes + charset", "text/" + std::string(61, 't') + " x\n",
	 MIME_TYPE_TOO_LONG, 1, {}},
};

class MimeParseTest : public testing::TestWithParam<ParseCase> {};

TEST_P(MimeParseTest, Parses)
{
	const ParseCase &c = GetParam();
	auto table = std::make_unique<mime_table>();
	uint32_t line = 99;
	EXPECT_EQ(mime_table_parse(c.text.data(), c.text.size(), table.get(), &line), c.problem);
	EXPECT_EQ(line, c.line);
	for (const auto &l : c.lookups) {
		struct text_span t = {nullptr, 0};
		int found = mime_table_find(table.get(), l.first.data(), l.first.size(), &t);
		EXPECT_EQ(found ? std::string(t.text, t.len) : std::string(), l.second) << l.first;
	}
}

INSTANTIATE_TEST_SUITE_P(Cases, MimeParseTest, testing::ValuesIn(kParseCases),
			 LabelName<ParseCase>);

// More extensions than MIME_ENTRIES_MAX: refused on the line that names one too many.
TEST(MimeParseLimitsTest, TooManyExtensions)
{
	std::string text;
	for (uint32_t i = 0; i <= MIME_ENTRIES_MAX; i++)
		text += "a/b e" + std::to_string(i) + "\n";
	auto table = std::make_unique<mime_table>();
	uint32_t line = 0;
	EXPECT_EQ(mime_table_parse(text.data(), text.size(), table.get(), &line), MIME_TOO_MANY);
	EXPECT_EQ(line, MIME_ENTRIES_MAX + 1);
}

// More text/ types (with the charset added) than MIME_TEXT_TYPES_MAX bytes.
TEST(MimeParseLimitsTest, TextTypesArenaFull)
{
	std::string text;
	const std::string type = "text/" + std::string(60, 'x'); // 80 bytes served
	uint32_t lines = MIME_TEXT_TYPES_MAX / 80 + 1;
	for (uint32_t i = 0; i < lines; i++)
		text += type + " e" + std::to_string(i) + "\n";
	auto table = std::make_unique<mime_table>();
	uint32_t line = 0;
	EXPECT_EQ(mime_table_parse(text.data(), text.size(), table.get(), &line),
		  MIME_TEXT_TYPES_FULL);
	EXPECT_EQ(line, lines);
}

// The system's own /etc/mime.types (Debian's, when present) is accepted whole.
TEST(MimeParseLimitsTest, SystemFileParses)
{
	FILE *f = fopen("/etc/mime.types", "rb");
	if (!f)
		GTEST_SKIP() << "no /etc/mime.types";
	std::string text;
	char buf[4096];
	for (size_t n; (n = fread(buf, 1, sizeof(buf), f)) > 0;)
		text.append(buf, n);
	fclose(f);
	ASSERT_LE(text.size(), MIME_FILE_MAX);
	auto table = std::make_unique<mime_table>();
	uint32_t line = 0;
	EXPECT_EQ(mime_table_parse(text.data(), text.size(), table.get(), &line), MIME_OK)
		<< "line " << line;
	struct text_span t;
	ASSERT_TRUE(mime_table_find(table.get(), LITERAL("html"), &t));
	EXPECT_EQ(std::string(t.text, t.len), "text/html; charset=utf-8");
}

// Which served types get a gzip representation at load (type_is_compressible): the
// issue's list by the types the table gives, and none of the compressed formats.
TEST(MimeTypesTest, CompressibleTypes)
{
	for (const char *name : {"a.html", "a.css", "a.js", "a.mjs", "a.json", "a.js.map",
				 "site.webmanifest", "a.svg", "a.wasm", "a.xml", "a.txt", "a.atom",
				 "a.xhtml", "a.csv", "a.md", "a.ttf", "a.otf", "a.eot", "a.ico",
				 "a.yaml", "a.ics"}) {
		std::string type = TypeOf(name);
		EXPECT_TRUE(type_is_compressible(type.data(), type.size())) << name << " " << type;
	}
	for (const char *name : {"a.png", "a.jpg", "a.webp", "a.avif", "a.woff", "a.woff2",
				 "a.zip", "a.gz", "a.mp4", "a.mp3", "a.pdf", "a.bin", "noext"}) {
		std::string type = TypeOf(name);
		EXPECT_FALSE(type_is_compressible(type.data(), type.size())) << name << " " << type;
	}
	for (const char *type : {"TEXT/Plain", "application/ld+json; charset=utf-8",
				 "application/vnd.custom+XML", "application/javascript"})
		EXPECT_TRUE(type_is_compressible(type, strlen(type))) << type;
	for (const char *type : {"text/", "text", "application/jsonx", "+json", "image/svg"})
		EXPECT_FALSE(type_is_compressible(type, strlen(type))) << type;
}

} // namespace
