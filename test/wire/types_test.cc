// Content-Types over the wire (feature `files`, BEHAVIOUR 10.5 and 10.15): each type the
// table gained for issue 25, and `--mime-types FILE` adding and overriding extensions in
// every stored head, byte for byte; a file the daemon refuses names its line.
#include <string>
#include <utility>
#include <vector>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr int kTimeoutMs = 10000;
constexpr int kExitUsage = 64;

std::string CloseGet(const std::string &method, const std::string &target)
{
	return method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
}

struct TypedFile {
	std::string name;
	std::string type; // the Content-Type it must be served with
};

// Serves root with flags and checks that GET and HEAD of every file earn exactly its 200
// with the expected type.
void ExpectTypes(const FileRoot &root, const std::vector<std::string> &flags,
		 const std::vector<TypedFile> &files)
{
	DaemonOptions options;
	options.extra_args = {"--root", root.dir()};
	options.extra_args.insert(options.extra_args.end(), flags.begin(), flags.end());
	Daemon daemon;
	START_DAEMON(daemon, options);
	for (const TypedFile &f : files)
		for (bool head : {false, true}) {
			Received r = Roundtrip(daemon.port(), CloseGet(head ? "HEAD" : "GET", "/" + f.name),
					       false, kTimeoutMs);
			EXPECT_EQ(r.bytes, FileHead(f.type, f.name.size(), root.dir() + "/" + f.name,
						    false) +
						   (head ? "" : f.name))
				<< f.name;
		}
}

// Each file's bytes are its name: distinct, and its length known.
std::vector<std::pair<std::string, std::string>> NamedFiles(const std::vector<TypedFile> &files)
{
	std::vector<std::pair<std::string, std::string>> out;
	for (const TypedFile &f : files)
		out.push_back({f.name, f.name});
	return out;
}

const std::vector<TypedFile> kAddedTypes = {
	{"m.mjs", "text/javascript; charset=utf-8"},
	{"i.avif", "image/avif"},
	{"site.webmanifest", "application/manifest+json"},
	{"c.vtt", "text/vtt; charset=utf-8"},
	{"e.ics", "text/calendar; charset=utf-8"},
	{"m.glb", "model/gltf-binary"},
	{"c.yaml", "application/yaml"},
	{"c.YML", "application/yaml"},
	{"a.opus", "audio/ogg"},
	{"a.flac", "audio/flac"},
};

TEST(TypesTest, EachAddedTypeByteExact)
{
	REQUIRE_FEATURE("files");
	FileRoot root(NamedFiles(kAddedTypes));
	ExpectTypes(root, {}, kAddedTypes);
}

// The file adds extensions (a text/ type gains charset=utf-8, as the table's do),
// overrides one of the table (case ignored; the last line naming it wins), and leaves
// the rest to the table.
const char kMimeTypes[] =
	"# types for this site\n"
	"\n"
	"text/x-custom\tfoo  bar\n"
	"application/x-old mjs\n"
	"application/x-module  MJS   # the later line wins\r\n"
	"image/x-unused\n"
	"   application/x-thing thing\n";

TEST(TypesTest, MimeTypesFileAddsAndOverrides)
{
	REQUIRE_FEATURE("files");
	FileRoot types(std::vector<std::pair<std::string, std::string>>{{"mime.types", kMimeTypes}});
	const std::vector<TypedFile> files = {
		{"a.foo", "text/x-custom; charset=utf-8"}, {"a.BAR", "text/x-custom; charset=utf-8"},
		{"m.mjs", "application/x-module"},           {"t.thing", "application/x-thing"},
		{"p.png", "image/png"},                      {"c.vtt", "text/vtt; charset=utf-8"},
		{"none", "application/octet-stream"},
	};
	FileRoot root(NamedFiles(files));
	ExpectTypes(root, {"--mime-types", types.dir() + "/mime.types"}, files);
}

// A refused file: exit 64, one line naming the file and the line, nothing announced.
TEST(TypesTest, BadMimeTypesFileNamesItsLine)
{
	REQUIRE_FEATURE("files");
	const std::string long_ext(33, 'x');
	const struct {
		const char *label;
		std::string text;
		std::string line; // after "apollod: --mime-types PATH"
	} cases[] = {
		{"no_slash", "text/plain txt\n# ok\nnotatype ext\n",
		 ":3: not a type/subtype of token characters\n"},
		{"empty_subtype", "\n\ntext/ a\n", ":3: not a type/subtype of token characters\n"},
		{"slash_in_extension", "text/plain a/b\n",
		 ":1: an extension holds '/' or a byte that is no token character\n"},
		{"long_extension", "text/plain ok\ntext/plain " + long_ext + "\n",
		 ":2: an extension longer than 32 bytes\n"},
	};
	FileRoot root(std::vector<std::pair<std::string, std::string>>{{"f.txt", "x"}});
	for (const auto &c : cases) {
		SCOPED_TRACE(c.label);
		FileRoot types(std::vector<std::pair<std::string, std::string>>{{"mime.types", c.text}});
		std::vector<std::string> argv = DaemonCommand();
		const std::string path = types.dir() + "/mime.types";
		argv.insert(argv.end(), {"--listen", "127.0.0.1:0", "--root", root.dir(),
					 "--mime-types", path});
		CommandResult r = RunCommand(argv, "", kTimeoutMs);
		ASSERT_TRUE(r.ran) << r.problem;
		EXPECT_EQ(r.exit_code, kExitUsage);
		EXPECT_EQ(r.err, "apollod: --mime-types " + path + c.line);
		EXPECT_EQ(r.out, "");
	}
	std::vector<std::string> argv = DaemonCommand();
	argv.insert(argv.end(), {"--listen", "127.0.0.1:0", "--root", root.dir(), "--mime-types",
				 root.dir() + "/missing"});
	CommandResult r = RunCommand(argv, "", kTimeoutMs);
	EXPECT_EQ(r.exit_code, kExitUsage);
	EXPECT_EQ(r.err, "apollod: --mime-types " + root.dir() +
				 "/missing: cannot open: no such file or directory\n");
}

} // namespace
} // namespace wire
