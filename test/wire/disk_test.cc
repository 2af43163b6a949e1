// Files beyond --cache-bytes, served from disk (feature `files`, BEHAVIOUR 10.18): byte
// for byte as a loaded file would be, 206 past 2 GiB on a sparse file, validators from
// the file as it is now, a file that shrinks mid-send closes the connection and counts
// bodies_cut_short, a symbolic link swapped in after start is never followed, and a tree
// with a 4 GiB file starts without reading it and with a small resident set; an open
// refused by a full descriptor table (EMFILE) is the 503 with Retry-After (issue 30).
#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <string>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr int kTimeoutMs = 20000;
constexpr char kOctets[] = "application/octet-stream";
constexpr size_t kBodyBytes = 300u << 10;        // over the 1 KiB budget the tests give
constexpr int64_t kPast2GiB = (1ll << 31) + 4099; // a range's first byte, past 2^31
constexpr int64_t kSparse3GiB = 3ll << 30;
constexpr int64_t kSparse4GiB = 4ll << 30;
constexpr size_t kRssBoundKb = 64u << 10;         // 64 MiB: generous, as behaviour
constexpr size_t kStartReadBound = 1u << 20;      // start-up reads under 1 MiB in all
constexpr size_t kSlowBody = 64u << 20;           // in flight for long behind a slow reader
constexpr int kSmallReceiveBuffer = 4096;

// Writes content at offset of the file at path (created 0644 when missing). "" or what
// failed.
std::string WriteAt(const std::string &path, const std::string &content, int64_t offset = 0)
{
	int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return "open " + path + ": " + strerror(errno);
	ssize_t n = pwrite(fd, content.data(), content.size(), offset);
	close(fd);
	return n == static_cast<ssize_t>(content.size()) ? "" : "pwrite " + path;
}

// A sparse file of size bytes at path with marker at offset. "" or what failed.
std::string WriteSparse(const std::string &path, int64_t size, const std::string &marker,
			int64_t offset)
{
	std::string e = WriteAt(path, marker, offset);
	if (e.empty() && truncate(path.c_str(), size) != 0)
		e = "truncate " + path + ": " + strerror(errno);
	return e;
}

// The 206 head the daemon renders for bytes first..last of the file at path.
std::string PartialHead(const std::string &path, int64_t first, int64_t last, int64_t size,
			bool keep_alive = false)
{
	return "HTTP/1.1 206 Partial Content\r\nContent-Type: " + std::string(kOctets) +
	       "\r\nContent-Length: " + std::to_string(last - first + 1) +
	       "\r\nContent-Range: bytes " + std::to_string(first) + "-" + std::to_string(last) +
	       "/" + std::to_string(size) + "\r\n" + FileFields(ValidatorsOf(path)) +
	       "Connection: " + (keep_alive ? "keep-alive" : "close") + "\r\n\r\n";
}

// A field of /proc/PID/status (VmRSS) or /proc/PID/io (rchar), as a number; 0 if absent.
uint64_t ProcField(pid_t pid, const std::string &file, const std::string &name)
{
	std::ifstream in("/proc/" + std::to_string(pid) + "/" + file);
	std::string key;
	uint64_t value = 0;
	while (in >> key) {
		if (key == name + ":" && in >> value)
			return value;
		in.ignore(1 << 16, '\n');
	}
	return 0;
}

uint64_t Counter(int port, const std::string &name)
{
	std::map<std::string, uint64_t> m = FetchMetrics(port);
	auto it = m.find(name);
	return it == m.end() ? UINT64_MAX : it->second;
}

// small.txt in memory, big.bin (kBodyBytes) and big.txt + big.txt.gz on disk.
std::string FillMixed(const std::string &dir)
{
	std::string e = WriteAt(dir + "/small.txt", "small\n");
	if (e.empty())
		e = WriteAt(dir + "/big.bin", Random(kBodyBytes, 1));
	if (e.empty())
		e = WriteAt(dir + "/big.txt", std::string(4096, 't'));
	if (e.empty())
		e = WriteAt(dir + "/big.txt.gz", Random(2048, 2));
	if (e.empty())
		e = WriteAt(dir + "/404.html", "<p>gone</p>\n");
	return e;
}

TEST(DiskTest, FileOverTheBudgetIsServedByteExact)
{
	REQUIRE_FEATURE("files");
	ServedTree tree("disk", FillMixed, {"--cache-bytes", "1K"});
	ASSERT_EQ(tree.error(), "");
	std::string big = tree.dir() + "/big.bin";
	std::string body = Random(kBodyBytes, 1);
	Received r = Roundtrip(tree.port(), GetClose("/big.bin"), false, kTimeoutMs);
	EXPECT_TRUE(r.bytes == FileHead(kOctets, kBodyBytes, big, false) + body)
		<< r.bytes.substr(0, 400);
	r = Roundtrip(tree.port(), GetClose("/big.bin", "HEAD"), false, kTimeoutMs);
	EXPECT_EQ(r.bytes, FileHead(kOctets, kBodyBytes, big, false));
	r = Roundtrip(tree.port(),
		      "GET /big.bin HTTP/1.1\r\nHost: h\r\nRange: bytes=1000-1999\r\n"
		      "Connection: close\r\n\r\n",
		      false, kTimeoutMs);
	EXPECT_TRUE(r.bytes == PartialHead(big, 1000, 1999, kBodyBytes) + body.substr(1000, 1000))
		<< r.bytes.substr(0, 400);
	std::string etag = ValidatorsOf(big).etag;
	r = Roundtrip(tree.port(),
		      "GET /big.bin HTTP/1.1\r\nHost: h\r\nIf-None-Match: " + etag +
			      "\r\nConnection: close\r\n\r\n",
		      false, kTimeoutMs);
	EXPECT_EQ(r.bytes, "HTTP/1.1 304 Not Modified\r\n" + FileFields(ValidatorsOf(big))
					   .substr(0, FileFields(ValidatorsOf(big)).find("Accept")) +
				   "Connection: close\r\n\r\n");
	r = Roundtrip(tree.port(),
		      "GET /big.bin HTTP/1.1\r\nHost: h\r\nRange: bytes=400000-\r\n"
		      "Connection: close\r\n\r\n",
		      false, kTimeoutMs);
	EXPECT_EQ(r.bytes.substr(0, 36), "HTTP/1.1 416 Range Not Satisfiable\r\n");
	EXPECT_NE(r.bytes.find("Content-Range: bytes */" + std::to_string(kBodyBytes) + "\r\n"),
		  std::string::npos);
	std::map<std::string, uint64_t> m = FetchMetrics(tree.port());
	EXPECT_EQ(m["responses_from_disk"], 5u);
	EXPECT_EQ(m["files_cached"], 2u) << "small.txt and 404.html fit 1 KiB";
	EXPECT_EQ(m["bodies_cut_short"], 0u);
}

// Pipelined on one keep-alive connection, disk-served answers wait for the responses
// before them (their heads use the scratch) and keep the order: a disk 200, a cached
// file, a disk 206, a disk HEAD; each byte-exact in the keep-alive form.
TEST(DiskTest, PipelinedWithCachedFilesInOrder)
{
	REQUIRE_FEATURE("files");
	ServedTree tree("disk", FillMixed, {"--cache-bytes", "1K"});
	ASSERT_EQ(tree.error(), "");
	std::string big = tree.dir() + "/big.bin";
	std::string body = Random(kBodyBytes, 1);
	Client c(tree.port());
	ASSERT_TRUE(c.connected());
	ASSERT_TRUE(c.Send("GET /big.bin HTTP/1.1\r\nHost: h\r\n\r\n"
			   "GET /small.txt HTTP/1.1\r\nHost: h\r\n\r\n"
			   "GET /big.bin HTTP/1.1\r\nHost: h\r\nRange: bytes=7-16\r\n\r\n"
			   "HEAD /big.bin HTTP/1.1\r\nHost: h\r\n\r\n"));
	EXPECT_TRUE(c.TakeResponse(false, kTimeoutMs) ==
		    FileHead(kOctets, kBodyBytes, big, true) + body);
	EXPECT_EQ(c.TakeResponse(false, kTimeoutMs),
		  FileHead("text/plain; charset=utf-8", 6, tree.dir() + "/small.txt", true) +
			  "small\n");
	EXPECT_EQ(c.TakeResponse(false, kTimeoutMs),
		  PartialHead(big, 7, 16, kBodyBytes, true) + body.substr(7, 10));
	EXPECT_EQ(c.TakeResponse(true, kTimeoutMs), FileHead(kOctets, kBodyBytes, big, true));
	EXPECT_TRUE(c.Quiet(100)) << "the connection stays open, nothing more sent";
}

// The validators are the file's as it is now: a disk-served file rewritten after start
// is served with its new bytes, length and ETag (the one exception to the snapshot).
TEST(DiskTest, ValidatorsComeFromTheOpenNotFromStartUp)
{
	REQUIRE_FEATURE("files");
	ServedTree tree("disk", FillMixed, {"--cache-bytes", "0"});
	ASSERT_EQ(tree.error(), "");
	std::string path = tree.dir() + "/small.txt";
	ASSERT_EQ(WriteAt(path + ".new", "rewritten, longer\n"), "");
	ASSERT_EQ(rename((path + ".new").c_str(), path.c_str()), 0);
	Received r = Roundtrip(tree.port(), GetClose("/small.txt"), false, kTimeoutMs);
	EXPECT_EQ(r.bytes, FileHead("text/plain; charset=utf-8", 18, path, false) +
				   "rewritten, longer\n");
	ASSERT_EQ(unlink(path.c_str()), 0);
	r = Roundtrip(tree.port(), GetClose("/small.txt"), false, kTimeoutMs);
	EXPECT_EQ(r.bytes.substr(0, 24), "HTTP/1.1 404 Not Found\r\n") << "a vanished file";
}

// Precompressed variants, --header-for and the --error-page behave from disk as from
// memory: the gzip representation with its own ETag, Vary and the operator's field; the
// 404 page's bytes under a 404 head.
TEST(DiskTest, VariantsFieldsAndErrorPageFromDisk)
{
	REQUIRE_FEATURE("files");
	ServedTree tree("disk", FillMixed,
			{"--cache-bytes", "0", "--header-for", "*.txt", "X-Shelf: far",
			 "--error-page", "404=/404.html"});
	ASSERT_EQ(tree.error(), "");
	std::string gz = tree.dir() + "/big.txt.gz";
	FileValidators v = ValidatorsOf(gz);
	std::string etag_gz = v.etag.substr(0, v.etag.size() - 1) + "-gz\"";
	Received r = Roundtrip(tree.port(),
			       "GET /big.txt HTTP/1.1\r\nHost: h\r\nAccept-Encoding: gzip\r\n"
			       "Connection: close\r\n\r\n",
			       false, kTimeoutMs);
	EXPECT_EQ(r.bytes, "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\n"
			   "Content-Length: 2048\r\nContent-Encoding: gzip\r\nLast-Modified: " +
				   v.last_modified + "\r\nETag: " + etag_gz +
				   "\r\nAccept-Ranges: bytes\r\nVary: Accept-Encoding\r\n"
				   "X-Shelf: far\r\nConnection: close\r\n\r\n" +
				   Random(2048, 2));
	r = Roundtrip(tree.port(), GetClose("/nowhere"), false, kTimeoutMs);
	EXPECT_EQ(r.bytes, "HTTP/1.1 404 Not Found\r\nContent-Type: text/html; charset=utf-8\r\n"
			   "Content-Length: 12\r\nConnection: close\r\n\r\n<p>gone</p>\n");
}

// An X.zst beside a file on disk is its zstd representation too (BEHAVIOUR 10.10, 10.18):
// opened by its own name per request, its ETag the file's own with -zst; a range of it.
TEST(DiskTest, ZstdRepresentationFromDisk)
{
	REQUIRE_FEATURE("files");
	ServedTree tree(
		"disk",
		[](const std::string &dir) {
			std::string e = FillMixed(dir);
			return e.empty() ? WriteAt(dir + "/big.txt.zst", Random(1024, 3)) : e;
		},
		{"--cache-bytes", "0"});
	ASSERT_EQ(tree.error(), "");
	FileValidators v = ValidatorsOf(tree.dir() + "/big.txt.zst");
	v.etag = v.etag.substr(0, v.etag.size() - 1) + "-zst\"";
	Received r = Roundtrip(tree.port(),
			       "GET /big.txt HTTP/1.1\r\nHost: h\r\nAccept-Encoding: gzip, zstd\r\n"
			       "Range: bytes=1000-\r\nConnection: close\r\n\r\n",
			       false, kTimeoutMs);
	EXPECT_EQ(r.bytes, "HTTP/1.1 206 Partial Content\r\nContent-Type: text/plain; charset=utf-8\r\n"
			   "Content-Length: 24\r\nContent-Range: bytes 1000-1023/1024\r\n"
			   "Content-Encoding: zstd\r\n" +
				   FileFields(v) + "Vary: Accept-Encoding\r\nConnection: close\r\n\r\n" +
				   Random(1024, 3).substr(1000));
}

// 206 at offsets past 2 GiB of a 3 GiB sparse file: 64-bit offsets all the way to
// sendfile.
TEST(DiskTest, RangePastTwoGiBOfASparseFile)
{
	REQUIRE_FEATURE("files");
	const std::string marker = "past-two-GiB-marker";
	ServedTree tree(
		"disk",
		[&](const std::string &dir) {
			return WriteSparse(dir + "/huge.iso", kSparse3GiB, marker, kPast2GiB);
		},
		{});
	ASSERT_EQ(tree.error(), "");
	std::string path = tree.dir() + "/huge.iso";
	int64_t last = kPast2GiB + static_cast<int64_t>(marker.size()) - 1;
	Received r = Roundtrip(tree.port(),
			       "GET /huge.iso HTTP/1.1\r\nHost: h\r\nRange: bytes=" +
				       std::to_string(kPast2GiB) + "-" + std::to_string(last) +
				       "\r\nConnection: close\r\n\r\n",
			       false, kTimeoutMs);
	EXPECT_EQ(r.bytes, PartialHead(path, kPast2GiB, last, kSparse3GiB) + marker);
	r = Roundtrip(tree.port(),
		      "GET /huge.iso HTTP/1.1\r\nHost: h\r\nRange: bytes=-5\r\n"
		      "Connection: close\r\n\r\n",
		      false, kTimeoutMs);
	EXPECT_EQ(r.bytes, PartialHead(path, kSparse3GiB - 5, kSparse3GiB - 1, kSparse3GiB) +
				   std::string(5, '\0'));
}

// A file truncated while its body is in flight: the daemon's sendfile finds the end of
// the file before Content-Length, closes the connection (the client sees fewer bytes and
// the end) and counts bodies_cut_short. The client reads slowly through a small receive
// buffer, so most of the body is still to send when the truncate lands.
TEST(DiskTest, FileTruncatedMidSendClosesTheConnection)
{
	REQUIRE_FEATURE("files");
	ServedTree tree(
		"disk",
		[](const std::string &dir) {
			return WriteSparse(dir + "/slow.bin", kSlowBody, "start", 0);
		},
		{"--cache-bytes", "0"});
	ASSERT_EQ(tree.error(), "");
	int fd = ConnectLoopback(tree.port(), kTimeoutMs, kSmallReceiveBuffer);
	ASSERT_GE(fd, 0) << strerror(errno);
	ASSERT_TRUE(SendAll(fd, GetClose("/slow.bin")));
	char buf[1024];
	ssize_t first = recv(fd, buf, sizeof(buf), 0); // the head has left: the body is under way
	ASSERT_GT(first, 0);
	// The daemon has filled its socket and waits for the slow reader.
	pid_t serving = ServingGeneration(tree.pid());
	ASSERT_TRUE(WaitUntil([&] { return ServerEndOf(fd).send_queue > 0 && Sleeps(serving); }))
		<< "the daemon never waited for the reader";
	ASSERT_EQ(truncate((tree.dir() + "/slow.bin").c_str(), 0), 0) << strerror(errno);
	Received rest = ReadUntilClose(fd, kTimeoutMs); // closes nothing: ours to close
	close(fd);
	std::string got = std::string(buf, static_cast<size_t>(first)) + rest.bytes;
	EXPECT_TRUE(rest.eof || rest.reset) << "the connection stayed open";
	size_t head_end = got.find("\r\n\r\n");
	ASSERT_NE(head_end, std::string::npos);
	EXPECT_LT(got.size() - head_end - 4, kSlowBody) << "the whole body came";
	EXPECT_EQ(Counter(tree.port(), "bodies_cut_short"), 1u);
}

// A name loaded as a regular file, replaced after start by a symbolic link (to a file
// outside DIR, or a directory on its path by a link to one): 404, never the target.
TEST(DiskTest, SymbolicLinkSwappedInIsNeverFollowed)
{
	REQUIRE_FEATURE("files");
	ServedTree outside("disk-outside",
			   [](const std::string &dir) {
				   std::string e = WriteAt(dir + "/secret", "SECRET BYTES\n");
				   if (e.empty() && mkdir((dir + "/sub").c_str(), 0755) != 0)
					   e = "mkdir";
				   if (e.empty())
					   e = WriteAt(dir + "/sub/page.bin", "SECRET PAGE\n");
				   return e;
			   },
			   {});
	ASSERT_EQ(outside.error(), "");
	ServedTree tree(
		"disk",
		[](const std::string &dir) {
			std::string e = WriteAt(dir + "/page.bin", "public page\n");
			if (e.empty() && mkdir((dir + "/sub").c_str(), 0755) != 0)
				e = "mkdir";
			if (e.empty())
				e = WriteAt(dir + "/sub/page.bin", "public sub page\n");
			return e;
		},
		{"--cache-bytes", "0"});
	ASSERT_EQ(tree.error(), "");
	ASSERT_EQ(unlink((tree.dir() + "/page.bin").c_str()), 0);
	ASSERT_EQ(symlink((outside.dir() + "/secret").c_str(), (tree.dir() + "/page.bin").c_str()),
		  0);
	ASSERT_EQ(unlink((tree.dir() + "/sub/page.bin").c_str()), 0);
	ASSERT_EQ(rmdir((tree.dir() + "/sub").c_str()), 0);
	ASSERT_EQ(symlink((outside.dir() + "/sub").c_str(), (tree.dir() + "/sub").c_str()), 0);
	for (const char *target : {"/page.bin", "/sub/page.bin"}) {
		Received r = Roundtrip(tree.port(), GetClose(target), false, kTimeoutMs);
		EXPECT_EQ(r.bytes.substr(0, 24), "HTTP/1.1 404 Not Found\r\n") << target;
		EXPECT_EQ(r.bytes.find("SECRET"), std::string::npos) << target;
	}
}

// A tree with a 4 GiB (sparse) file starts under the default budget without reading a
// byte of it (the process's rchar stays under 1 MiB) and serves it with a small resident
// set (VmRSS under 64 MiB, generous: it measures behaviour, not speed).
TEST(DiskTest, FourGiBTreeStartsSmallAndServes)
{
	REQUIRE_FEATURE("files");
	ServedTree tree(
		"disk",
		[](const std::string &dir) {
			std::string e = WriteSparse(dir + "/four.img", kSparse4GiB, "end", kSparse4GiB - 3);
			return e.empty() ? WriteAt(dir + "/index.html", "<p>hi</p>\n") : e;
		},
		{});
	ASSERT_EQ(tree.error(), "");
	EXPECT_LT(ProcField(tree.pid(), "io", "rchar"), kStartReadBound);
	Received r = Roundtrip(tree.port(), GetClose("/four.img", "HEAD"), false, kTimeoutMs);
	EXPECT_EQ(r.bytes, FileHead(kOctets, static_cast<size_t>(kSparse4GiB),
				    tree.dir() + "/four.img", false));
	r = Roundtrip(tree.port(),
		      "GET /four.img HTTP/1.1\r\nHost: h\r\nRange: bytes=-3\r\n"
		      "Connection: close\r\n\r\n",
		      false, kTimeoutMs);
	EXPECT_EQ(r.bytes, PartialHead(tree.dir() + "/four.img", kSparse4GiB - 3, kSparse4GiB - 1,
				       kSparse4GiB) +
				   "end");
	uint64_t rss_kb = ProcField(tree.pid(), "status", "VmRSS");
	EXPECT_GT(rss_kb, 0u);
	EXPECT_LT(rss_kb, kRssBoundKb);
}

// The lowest descriptor number pid does not hold (/proc/PID/fd): an open in pid gets it,
// so a soft RLIMIT_NOFILE of exactly that refuses the next open with EMFILE. -1 on error.
int LowestFreeDescriptor(pid_t pid)
{
	std::string dir = "/proc/" + std::to_string(pid) + "/fd/";
	for (int fd = 0; fd < (1 << 16); fd++) {
		struct stat st;
		if (lstat((dir + std::to_string(fd)).c_str(), &st) != 0)
			return errno == ENOENT ? fd : -1;
	}
	return -1;
}

// BEHAVIOUR 10.18, issue 30: the serving process's soft RLIMIT_NOFILE lowered (prlimit)
// to its lowest free descriptor, so the open of a disk-served file fails with EMFILE: a
// GET and a HEAD on a kept connection get the static 503 with Retry-After (keep-alive,
// HEAD without the body), counted in disk_opens_refused and responses_503,
// not in responses_from_disk; a file in memory is still served; once the limit is back,
// the same GET is the whole file.
TEST(DiskTest, FullDescriptorTableIs503WithRetryAfter)
{
	REQUIRE_FEATURE("files");
	ServedTree tree("disk", FillMixed, {"--cache-bytes", "1K"});
	ASSERT_EQ(tree.error(), "");
	pid_t serving = ServingGeneration(tree.pid());
	ASSERT_GT(serving, 0);
	Client c(tree.port());
	ASSERT_TRUE(c.connected());
	ASSERT_TRUE(c.Send(Get("/small.txt")));
	ASSERT_EQ(ParseResponse(c.TakeResponse(false, kTimeoutMs)).status, 200);
	struct rlimit was;
	ASSERT_EQ(prlimit(serving, RLIMIT_NOFILE, nullptr, &was), 0) << strerror(errno);
	int lowest = LowestFreeDescriptor(serving);
	ASSERT_GT(lowest, 2);
	struct rlimit lowered = {static_cast<rlim_t>(lowest), was.rlim_max};
	ASSERT_EQ(prlimit(serving, RLIMIT_NOFILE, &lowered, nullptr), 0) << strerror(errno);
	const std::string unavailable = "HTTP/1.1 503 Service Unavailable\r\n";
	ASSERT_TRUE(c.Send(Get("/big.bin")));
	std::string got = c.TakeResponse(false, kTimeoutMs);
	HttpResponse r = ParseResponse(got);
	EXPECT_EQ(got.rfind(unavailable, 0), 0u) << got;
	EXPECT_EQ(r.Header("Retry-After"), "1");
	EXPECT_EQ(r.Header("Connection"), "keep-alive");
	EXPECT_EQ(r.body, "service unavailable\n");
	ASSERT_TRUE(c.Send(Get("/big.bin", "HEAD")));
	got = c.TakeResponse(true, kTimeoutMs);
	EXPECT_EQ(got.rfind(unavailable, 0), 0u) << got;
	EXPECT_EQ(got.substr(got.size() - 4), "\r\n\r\n") << "HEAD: no body";
	ASSERT_TRUE(c.Send(Get("/small.txt")));
	EXPECT_EQ(ParseResponse(c.TakeResponse(false, kTimeoutMs)).body, "small\n");
	ASSERT_TRUE(c.Send(Get("/metrics")));
	Counters parsed;
	std::string error;
	ASSERT_TRUE(ParseMetricsBody(ParseResponse(c.TakeResponse(false, kTimeoutMs)).body,
				     &parsed, &error))
		<< error;
	std::map<std::string, uint64_t> m(parsed.begin(), parsed.end());
	EXPECT_EQ(m["disk_opens_refused"], 2u);
	EXPECT_EQ(m["responses_503"], 2u);
	EXPECT_EQ(m["responses_from_disk"], 0u);
	ASSERT_EQ(prlimit(serving, RLIMIT_NOFILE, &was, nullptr), 0) << strerror(errno);
	ASSERT_TRUE(c.Send(Get("/big.bin")));
	got = c.TakeResponse(false, kTimeoutMs);
	EXPECT_TRUE(got == FileHead(kOctets, kBodyBytes, tree.dir() + "/big.bin", true) +
				   Random(kBodyBytes, 1))
		<< got.substr(0, 300);
	EXPECT_EQ(Counter(tree.port(), "disk_opens_refused"), 2u);
}

} // namespace
} // namespace wire
