// The deadline FIFO (common/serve/deadline_queue.h): scenarios of arm / touch / cancel,
// each checked for queue order (both link directions), epoll wait and the expired head.
// Then the deadline unit (common/serve/deadline.h) over its three FIFOs: the wait is the
// earliest head of any kind, expiry comes earliest first, a slot sits in one queue,
// eviction takes the head of the waiting kind.
#include <stdint.h>

#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "common/serve/deadline_queue.h"
#include "common/serve/deadline.h"

namespace {

const uint64_t kIdleMs = 1000;

struct Op {
	enum { ARM, TOUCH, CANCEL } kind;
	int32_t slot;
	uint64_t now_ms; // unused by CANCEL
};
Op Arm(int32_t slot, uint64_t now) { return {Op::ARM, slot, now}; }
Op Touch(int32_t slot, uint64_t now) { return {Op::TOUCH, slot, now}; }
Op Cancel(int32_t slot) { return {Op::CANCEL, slot, 0}; }

void Apply(deadline_queue *q, const std::vector<Op> &ops)
{
	for (const Op &op : ops) {
		switch (op.kind) {
		case Op::ARM: deadline_queue_arm(q, op.slot, op.now_ms); break;
		case Op::TOUCH: deadline_queue_touch(q, op.slot, op.now_ms); break;
		case Op::CANCEL: deadline_queue_cancel(q, op.slot); break;
		}
	}
}

// Returns the slots from head to tail, after checking that walking back from the tail
// gives the same slots reversed. Stops after DEADLINE_QUEUE_SLOTS steps so a cycle fails.
std::vector<int32_t> QueueOrder(const deadline_queue &q)
{
	std::vector<int32_t> forward, backward;
	for (int32_t s = q.head; s != DEADLINE_QUEUE_NONE && forward.size() <= DEADLINE_QUEUE_SLOTS;
	     s = q.node[s].next)
		forward.push_back(s);
	for (int32_t s = q.tail;
	     s != DEADLINE_QUEUE_NONE && backward.size() <= DEADLINE_QUEUE_SLOTS;
	     s = q.node[s].prev)
		backward.push_back(s);
	EXPECT_EQ(std::vector<int32_t>(backward.rbegin(), backward.rend()), forward)
		<< "prev links disagree with next links";
	return forward;
}

std::unique_ptr<deadline_queue> NewQueue(uint64_t idle_ms)
{
	auto q = std::make_unique<deadline_queue>();
	deadline_queue_init(q.get(), idle_ms);
	return q;
}

TEST(DeadlineQueueTest, Scenarios)
{
	const std::vector<Op> three = {Arm(5, 0), Arm(3, 10), Arm(7, 20)};
	auto then = [&](std::vector<Op> more) {
		std::vector<Op> ops = three;
		ops.insert(ops.end(), more.begin(), more.end());
		return ops;
	};
	const struct {
		const char *label;
		std::vector<Op> ops;
		std::vector<int32_t> order; // head to tail afterwards
		uint64_t now_ms;            // when wait and expiry are asked
		int32_t wait_ms;
		int32_t expired;
		uint64_t idle_ms = kIdleMs;
	} cases[] = {
		{"empty queue", {}, {}, 0, -1, DEADLINE_QUEUE_NONE},
		{"one slot, not due", {Arm(4, 0)}, {4}, 250, 750, DEADLINE_QUEUE_NONE},
		{"one slot, due exactly now", {Arm(4, 0)}, {4}, 1000, 0, 4},
		{"one slot, overdue", {Arm(4, 0)}, {4}, 5000, 0, 4},
		{"arm keeps call order", three, {5, 3, 7}, 0, 1000, DEADLINE_QUEUE_NONE},
		{"head due, the rest not", three, {5, 3, 7}, 1005, 0, 5},
		{"touch head moves it to the tail", then({Touch(5, 30)}), {3, 7, 5}, 30, 980,
		 DEADLINE_QUEUE_NONE},
		{"touch middle moves it to the tail", then({Touch(3, 30)}), {5, 7, 3}, 30, 970,
		 DEADLINE_QUEUE_NONE},
		{"touch tail keeps the order", then({Touch(7, 30)}), {5, 3, 7}, 30, 970,
		 DEADLINE_QUEUE_NONE},
		{"touch tail pushes its deadline out",
		 {Arm(5, 0), Arm(3, 10), Cancel(5), Touch(3, 500)}, {3}, 1010, 490,
		 DEADLINE_QUEUE_NONE},
		{"touch the only slot", {Arm(2, 0), Touch(2, 100)}, {2}, 100, 1000,
		 DEADLINE_QUEUE_NONE},
		{"cancel head", then({Cancel(5)}), {3, 7}, 0, 1010, DEADLINE_QUEUE_NONE},
		{"cancel middle", then({Cancel(3)}), {5, 7}, 0, 1000, DEADLINE_QUEUE_NONE},
		{"cancel tail", then({Cancel(7)}), {5, 3}, 0, 1000, DEADLINE_QUEUE_NONE},
		{"cancel tail, then arm appends", then({Cancel(7), Arm(8, 30)}), {5, 3, 8}, 1010, 0, 5},
		{"cancel all three", then({Cancel(3), Cancel(7), Cancel(5)}), {}, 2000, -1,
		 DEADLINE_QUEUE_NONE},
		{"cancel the only slot", {Arm(1, 0), Cancel(1)}, {}, 0, -1, DEADLINE_QUEUE_NONE},
		{"cancelled slot armed again", {Arm(1, 0), Arm(2, 5), Cancel(1), Arm(1, 10)}, {2, 1},
		 5, 1000, DEADLINE_QUEUE_NONE},
		{"first and last slot index", {Arm(DEADLINE_QUEUE_SLOTS - 1, 0), Arm(0, 1)},
		 {DEADLINE_QUEUE_SLOTS - 1, 0}, 1000, 0, DEADLINE_QUEUE_SLOTS - 1},
		{"wait capped at INT32_MAX", {Arm(9, 0)}, {9}, 0, INT32_MAX, DEADLINE_QUEUE_NONE,
		 1ull << 40},
	};
	for (const auto &c : cases) {
		SCOPED_TRACE(c.label);
		auto q = NewQueue(c.idle_ms);
		Apply(q.get(), c.ops);
		EXPECT_EQ(QueueOrder(*q), c.order);
		EXPECT_EQ(deadline_queue_wait_ms(q.get(), c.now_ms), c.wait_ms);
		EXPECT_EQ(deadline_queue_expired(q.get(), c.now_ms), c.expired);
	}
}

// The event loop's use: ask for the expired head, close (cancel) it, ask again.
TEST(DeadlineQueueTest, ExpiryPopsInDeadlineOrder)
{
	auto q = NewQueue(kIdleMs);
	Apply(q.get(), {Arm(5, 0), Arm(3, 10), Arm(7, 20), Arm(1, 30), Touch(3, 40)});
	std::vector<int32_t> expired;
	for (int32_t s; (s = deadline_queue_expired(q.get(), 1025)) != DEADLINE_QUEUE_NONE;) {
		ASSERT_LT(expired.size(), 4u) << "expiry does not stop";
		expired.push_back(s);
		deadline_queue_cancel(q.get(), s);
	}
	EXPECT_EQ(expired, (std::vector<int32_t>{5, 7}));
	EXPECT_EQ(QueueOrder(*q), (std::vector<int32_t>{1, 3}));
	EXPECT_EQ(deadline_queue_wait_ms(q.get(), 1025), 5);
}

// Idle 1000 ms, head 300 ms, send 5000 ms; the unit's clock is set by hand.
TEST(IdleUnitTest, ThreeQueuesOneWaitEarliestFirst)
{
	const uint64_t lengths[DEADLINE_KINDS] = {1000, 300, 5000};
	deadline_init(nullptr, lengths);
	deadline_state.now_ms = 0;
	deadline_arm(4, DEADLINE_WAITING); // expires at 1000
	deadline_arm(5, DEADLINE_SEND);    // 5000
	deadline_state.now_ms = 100;
	deadline_arm(6, DEADLINE_WAITING); // 1100
	deadline_arm(7, DEADLINE_HEAD);    // 400: the earliest, though armed last
	EXPECT_EQ(deadline_wait_ms(), 300);
	EXPECT_EQ(deadline_oldest_waiting(), 4);
	deadline_arm(4, DEADLINE_HEAD); // moves: 4 leaves the idle queue, expires at 400 too
	EXPECT_EQ(deadline_oldest_waiting(), 6);
	deadline_state.now_ms = 350;
	deadline_touch(5); // send progress: 5350
	deadline_state.now_ms = 1200;
	std::vector<int> expired;
	for (int s; (s = deadline_next_expired()) != DEADLINE_NONE;) {
		ASSERT_LT(expired.size(), 4u) << "expiry does not stop";
		expired.push_back(s);
		deadline_cancel(s);
	}
	EXPECT_EQ(expired, (std::vector<int>{7, 4, 6})); // 400, 400 (armed later), 1100
	EXPECT_EQ(deadline_wait_ms(), 5350 - 1200);
	deadline_cancel(5);
	deadline_cancel(5); // a slot in no queue: nothing happens
	EXPECT_EQ(deadline_wait_ms(), -1);
	EXPECT_EQ(deadline_oldest_waiting(), DEADLINE_NONE);
}

} // namespace
