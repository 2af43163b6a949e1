/* Inputs that end against an inaccessible page, so a routine that reads even one byte past
 * the end of its input crashes the test instead of passing by luck (the picohttpparser
 * harness). */
#ifndef APOLLOD_TEST_UNIT_GUARDED_BUFFER_H
#define APOLLOD_TEST_UNIT_GUARDED_BUFFER_H

#include <stddef.h>

#include <string>

// A private copy of some bytes (or a zero-filled area) whose last byte is the last byte
// before a PROT_NONE page. Reads and writes inside [data(), data() + size()) are fine; one
// byte beyond faults.
class GuardedBuffer {
public:
	explicit GuardedBuffer(const std::string &bytes);
	explicit GuardedBuffer(size_t size); // zero-filled
	~GuardedBuffer();
	GuardedBuffer(const GuardedBuffer &) = delete;
	GuardedBuffer &operator=(const GuardedBuffer &) = delete;

	const char *data() const { return data_; }
	char *mutable_data() { return data_; }
	size_t size() const { return size_; }

private:
	void *mapping_;
	size_t mapping_len_;
	char *data_;
	size_t size_;
};

#endif /* APOLLOD_TEST_UNIT_GUARDED_BUFFER_H */
