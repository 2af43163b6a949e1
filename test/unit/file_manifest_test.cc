// The reload manifest's check (common/answer/file_manifest.h, BEHAVIOUR 10.17): a manifest
// the previous image wrote is accepted; one from another layout version, cut short, with
// bytes after its end, or with any record pointing outside its names or its arena is
// refused whole, so the new image reads every file again. Gzip records (made at load, at
// the head's level) are accepted beside identity ones, and one that kept nothing has no
// extent.
#include <stdint.h>
#include <string.h>

#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/answer/file_manifest.h"

namespace {

constexpr uint64_t kArenaSize[2] = {4096, 100};

// A manifest of two records (a.txt in arena 0 at 0, dir/b.bin in arena 1 at 40), as
// 8-byte-aligned words, with its byte size.
struct Built {
	std::vector<uint64_t> words;
	uint64_t size;
	file_manifest_head *head() { return reinterpret_cast<file_manifest_head *>(words.data()); }
	file_manifest_record *record(int i)
	{
		return reinterpret_cast<file_manifest_record *>(
			reinterpret_cast<char *>(words.data()) + FILE_MANIFEST_HEAD_SIZE +
			i * FILE_MANIFEST_RECORD_SIZE);
	}
	int64_t Check(uint32_t arenas = 2) const
	{
		return file_manifest_check(words.data(), size, arenas, kArenaSize);
	}
};

Built Make()
{
	const std::string names = "a.txtdir/b.bin";
	Built b;
	b.size = file_manifest_size(2, names.size());
	b.words.assign((b.size + 7) / 8 + 1, 0); // one spare word: a longer size stays readable
	*b.head() = {FILE_MANIFEST_MAGIC, FILE_MANIFEST_VERSION, FILE_MANIFEST_RECORD_SIZE, 2, 2,
		     0, names.size()};
	*b.record(0) = {{7, 1, 2, 3, 4, 8, 1}, 2, 0, 0, 5, 0, 0};
	*b.record(1) = {{9, 1, 2, 999999999, 0, 8, 1}, 60, 40, 5, 9, 1, 0};
	memcpy(reinterpret_cast<char *>(b.words.data()) + file_manifest_size(2, 0), names.data(),
	       names.size());
	return b;
}

TEST(FileManifestTest, AcceptsWhatAnImageWrites)
{
	Built b = Make();
	ASSERT_EQ(b.Check(), 2);
	EXPECT_EQ(std::string(file_manifest_names(b.words.data()) + b.record(1)->name_at,
			      b.record(1)->name_len),
		  "dir/b.bin");
	EXPECT_EQ(file_manifest_records(b.words.data())[1].offset, 40u);
}

// A gzip record of a.txt's name beside its identity (its bytes in arena 1), and one of
// dir/b.bin's that kept none (size 0), made at level 6.
TEST(FileManifestTest, AcceptsGzipRecords)
{
	Built b = Make();
	b.head()->gzip_level = 6;
	*b.record(1) = {{7, 1, 2, 3, 4, 8, 1}, 30, 10, 0, 5, 1, FILE_MANIFEST_GZIP};
	EXPECT_EQ(b.Check(), 2);
	*b.record(1) = {{9, 1, 2, 3, 0, 8, 1}, 0, 0, 5, 9, 0, FILE_MANIFEST_GZIP};
	EXPECT_EQ(b.Check(), 2) << "none kept";
}

TEST(FileManifestTest, AcceptsAnEmptyOne)
{
	Built b;
	b.size = file_manifest_size(0, 0);
	b.words.assign(b.size / 8, 0);
	*b.head() = {FILE_MANIFEST_MAGIC, FILE_MANIFEST_VERSION, FILE_MANIFEST_RECORD_SIZE, 0, 1,
		     0, 0};
	EXPECT_EQ(b.Check(1), 0);
}

// Each row spoils one thing of a good manifest; every one is refused.
TEST(FileManifestTest, RefusesAnythingOff)
{
	const std::vector<std::pair<const char *, std::function<void(Built &)>>> spoilt = {
		{"magic", [](Built &b) { b.head()->magic ^= 1; }},
		{"another version", [](Built &b) { b.head()->version = FILE_MANIFEST_VERSION + 1; }},
		{"record size", [](Built &b) { b.head()->record_size = 72; }},
		{"gzip level past 12", [](Built &b) { b.head()->gzip_level = FILE_MANIFEST_LEVEL_MAX + 1; }},
		{"arena count", [](Built &b) { b.head()->arenas = 1; }},
		{"count past the end", [](Built &b) { b.head()->count = 0x7fffffff; }},
		{"count one more", [](Built &b) { b.head()->count = 3; }},
		{"names longer", [](Built &b) { b.head()->names_bytes++; }},
		{"names huge", [](Built &b) { b.head()->names_bytes = UINT64_MAX; }},
		{"cut short", [](Built &b) { b.size--; }},
		{"bytes after", [](Built &b) { b.size++; }},
		{"below a head", [](Built &b) { b.size = FILE_MANIFEST_HEAD_SIZE - 1; }},
		{"empty name", [](Built &b) { b.record(0)->name_len = 0; }},
		{"name past names", [](Built &b) { b.record(1)->name_len = 10; }},
		{"name_at past names", [](Built &b) { b.record(1)->name_at = 0xffffffff; }},
		{"arena not handed", [](Built &b) { b.record(1)->arena = 2; }},
		{"empty extent", [](Built &b) { b.record(0)->size = 0; }},
		{"extent past arena", [](Built &b) { b.record(1)->size = 61; }},
		{"offset past arena", [](Built &b) { b.record(1)->offset = 101; }},
		{"offset wraps", [](Built &b) { b.record(1)->offset = UINT64_MAX - 10; }},
		{"mtime ns", [](Built &b) { b.record(0)->stamp.mtime_ns = FILE_MANIFEST_NS_MAX; }},
		{"ctime ns", [](Built &b) { b.record(1)->stamp.ctime_ns = FILE_MANIFEST_NS_MAX; }},
		{"unknown coding", [](Built &b) { b.record(0)->coding = FILE_MANIFEST_GZIP + 1; }},
		{"gzip without a level", [](Built &b) { b.record(0)->coding = FILE_MANIFEST_GZIP; }},
		{"none kept with an offset", [](Built &b) {
			 b.head()->gzip_level = 6;
			 *b.record(1) = {{9, 1, 2, 3, 0, 8, 1}, 0, 40, 5, 9, 0, FILE_MANIFEST_GZIP};
		 }},
		{"none kept in arena 1", [](Built &b) {
			 b.head()->gzip_level = 6;
			 *b.record(1) = {{9, 1, 2, 3, 0, 8, 1}, 0, 0, 5, 9, 1, FILE_MANIFEST_GZIP};
		 }},
		{"gzip extent past arena", [](Built &b) {
			 b.head()->gzip_level = 6;
			 *b.record(1) = {{9, 1, 2, 3, 0, 8, 1}, 61, 40, 5, 9, 1, FILE_MANIFEST_GZIP};
		 }},
	};
	for (const auto &row : spoilt) {
		Built b = Make();
		row.second(b);
		EXPECT_EQ(b.Check(), -1) << row.first;
	}
	Built b = Make();
	EXPECT_EQ(b.Check(FILE_MANIFEST_ARENAS_MAX + 1), -1) << "more arenas than a hand-over";
}

// issue 31: each site's manifest carries the key of its DIR, by which the next image's
// site of the same DIR finds it among every site's hand-over: the same path, the same key;
// another path, another key (FNV-1a of the bytes, which a trailing '/' changes).
TEST(FileManifestTest, SiteKeyFollowsTheDirectory)
{
	EXPECT_EQ(file_manifest_site_key("/srv/a"), file_manifest_site_key("/srv/a"));
	EXPECT_NE(file_manifest_site_key("/srv/a"), file_manifest_site_key("/srv/b"));
	EXPECT_NE(file_manifest_site_key("/srv/a"), file_manifest_site_key("/srv/a/"));
	EXPECT_EQ(file_manifest_site_key(""), 0xcbf29ce484222325ull) << "FNV-1a's basis";
	EXPECT_EQ(sizeof(file_manifest_head), (size_t)FILE_MANIFEST_HEAD_SIZE);
}

} // namespace
