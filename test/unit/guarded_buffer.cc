// Guard-page buffers (see guarded_buffer.h).
#include "test/unit/guarded_buffer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

GuardedBuffer::GuardedBuffer(size_t size) : size_(size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	// At least one readable page, so even an empty input has mapped memory in front.
	size_t data_pages = size / page + 1;
	mapping_len_ = (data_pages + 1) * page;
	mapping_ = mmap(nullptr, mapping_len_, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mapping_ == MAP_FAILED) {
		perror("GuardedBuffer: mmap");
		abort();
	}
	char *guard = (char *)mapping_ + data_pages * page;
	if (mprotect(guard, page, PROT_NONE) != 0) {
		perror("GuardedBuffer: mprotect");
		abort();
	}
	data_ = guard - size;
}

GuardedBuffer::GuardedBuffer(const std::string &bytes) : GuardedBuffer(bytes.size())
{
	memcpy(data_, bytes.data(), bytes.size());
}

GuardedBuffer::~GuardedBuffer()
{
	munmap(mapping_, mapping_len_);
}
