"""Unit tests for the parsers of tool output in bench/, on outputs captured from the real
tools and kept in bench/testdata/: wrk (with wrk_report.lua's WRK_JSON line; in
wrk_timed_out.txt, against a server that answers after 1.5 s, with --timeout 1s), strace -c,
callgrind's output file, hyperfine's JSON export, /proc/PID/stat and schedstat, and the
self-check between the two CPU clocks."""

import os
import unittest

from bench import counts
from bench import cpu_split
from bench import load
from bench import servers
from bench import startup

TESTDATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata")


def sample(name):
    with open(os.path.join(TESTDATA, name)) as f:
        return f.read()


class WrkTest(unittest.TestCase):
    def test_close_run(self):
        r = load.parse_wrk(sample("wrk_close.txt"))
        self.assertEqual(r["requests"], 22854)
        self.assertAlmostEqual(r["rps"], 22854 / 1.098753)
        self.assertAlmostEqual(r["bytes_per_s"], 2651064 / 1.098753)
        self.assertEqual((r["p50_us"], r["p99_us"]), (259, 2314))
        self.assertEqual(r["success_share"], 1.0)
        self.assertEqual(sum(r["errors"].values()), 0)

    def test_pipelined_run_has_no_latency(self):
        r = load.parse_wrk(sample("wrk_pipelined.txt"))
        self.assertEqual(r["requests"], 889344)
        self.assertEqual(r["p99_us"], 0)  # wrk's histogram means nothing with pipelining

    def test_untimed_run_has_no_latency(self):
        # every response slower than --timeout (1 s against a server that answers after
        # 1.5 s): wrk counts each as completed and as a timeout error, and times none
        r = load.parse_wrk(sample("wrk_timed_out.txt"))
        self.assertEqual((r["requests"], r["errors"]["timeout"]), (4, 4))
        self.assertEqual((r["p50_us"], r["p99_us"]), (None, None))
        rounds = [dict(r, cpu_user_s=0.0, cpu_system_s=0.1, syscalls_per_request=None,
                       wrk_output="")]
        rounds.append(dict(rounds[0], p50_us=900000, p99_us=1900000))
        self.assertEqual(load.combine_rounds(rounds)["p99_us"], 1900000)
        self.assertIsNone(load.combine_rounds(rounds[:1])["p99_us"])

    def test_errors_lower_the_success_share(self):
        text = sample("wrk_close.txt").replace('"connect": 0', '"connect": 22854').replace(
            '"status": 0', '"status": 854')
        r = load.parse_wrk(text)
        self.assertAlmostEqual(r["success_share"], (22854 - 854) / (2 * 22854))

    def test_refused_run_has_no_report(self):
        with self.assertRaises(RuntimeError):
            load.parse_wrk(sample("wrk_refused.txt"))

    def test_rounds_combine_to_medians_and_cpu_per_request(self):
        one = load.parse_wrk(sample("wrk_close.txt"))
        rounds = []
        for user, system, rps in ((0.1, 0.3, 3.0), (0.2, 0.2, 1.0), (0.3, 0.1, 2.0)):
            r = dict(one, rps=rps, cpu_user_s=user, cpu_system_s=system,
                     cpu_run_s=(user + system) * 1.05, syscalls_per_request=None,
                     wrk_output="")
            rounds.append(r)
        c = load.combine_rounds(rounds)
        self.assertEqual(c["rps"], 2.0)
        self.assertEqual(c["requests"], 3 * 22854)
        self.assertAlmostEqual(c["cpu_us_per_request"], 1.2e6 / (3 * 22854))
        self.assertAlmostEqual(c["cpu_user_us_per_request"]
                               + c["cpu_system_us_per_request"], c["cpu_us_per_request"])
        self.assertIsNone(c["syscalls_per_request"])
        # the scheduler's clock over the same windows, 5% above the ticks: no warning
        self.assertAlmostEqual(c["cpu_run_us_per_request"], 1.26e6 / (3 * 22854))
        self.assertIsNone(c["clocks_gap"])
        self.assertIn("%.1f us/req (stat)   %.1f (schedstat)" % (
            c["cpu_us_per_request"], c["cpu_run_us_per_request"]),
            load.result_line("4 MiB", "nginx", c))

    def test_rounds_whose_clocks_disagree_are_flagged(self):
        one = load.parse_wrk(sample("wrk_close.txt"))
        rounds = [dict(one, rps=1.0, cpu_user_s=0.1, cpu_system_s=0.2, cpu_run_s=0.1,
                       syscalls_per_request=None, wrk_output="")] * 2
        c = load.combine_rounds(rounds)
        self.assertAlmostEqual(c["clocks_gap"], 2.0)  # stat 0.6 s against run time 0.2 s
        self.assertIn("200% apart", load.clocks_warning("4 MiB", "nginx", c))

    def test_rounds_without_schedstat(self):
        one = load.parse_wrk(sample("wrk_close.txt"))
        rounds = [dict(one, rps=1.0, cpu_user_s=0.1, cpu_system_s=0.2, cpu_run_s=None,
                       syscalls_per_request=None, wrk_output="")]
        c = load.combine_rounds(rounds)
        self.assertIsNone(c["cpu_run_us_per_request"])
        self.assertIsNone(c["clocks_gap"])
        self.assertIn("     - (schedstat)", load.result_line("x", "nginx", c))


class ClocksTest(unittest.TestCase):
    """The self-check's arithmetic: /proc/PID/stat's ticks against schedstat's run time."""

    def test_schedstat_run_time(self):
        self.assertEqual(servers.parse_schedstat("1234567890 55 17\n"), 1234567890)

    def test_within_ten_percent_agree(self):
        self.assertIsNone(servers.clocks_disagree(1.09, 1.0))
        self.assertIsNone(servers.clocks_disagree(0.90, 1.0))

    def test_beyond_ten_percent_disagree(self):
        self.assertAlmostEqual(servers.clocks_disagree(1.2, 1.0), 0.2)
        self.assertAlmostEqual(servers.clocks_disagree(0.5, 1.0), 0.5)

    def test_no_run_time_no_verdict(self):
        self.assertIsNone(servers.clocks_disagree(1.0, None))
        self.assertIsNone(servers.clocks_disagree(1.0, 0.0))

    def test_this_process_by_both_clocks(self):
        run = servers.run_seconds(os.getpid())
        self.assertIsNotNone(run)
        self.assertGreater(run, 0)


class StraceTest(unittest.TestCase):
    def test_summary(self):
        calls = counts.parse_strace_summary(sample("strace_min.txt"))
        self.assertEqual(calls["accept4"], 4)  # the row with an errors column
        self.assertEqual(calls["write"], 4)
        self.assertEqual(calls["execve"], 1)
        self.assertNotIn("total", calls)
        self.assertEqual(sum(calls.values()), 21)  # the total row's calls

    def test_nothing_to_parse(self):
        self.assertEqual(counts.parse_strace_summary("strace: exec failed\n"), {})


class CallgrindTest(unittest.TestCase):
    def test_totals(self):
        self.assertEqual(counts.parse_callgrind_totals(sample("callgrind_min.out")), 1399)

    def test_no_totals(self):
        with self.assertRaises(ValueError):
            counts.parse_callgrind_totals("version: 1\ncmd: x\n")


class HyperfineTest(unittest.TestCase):
    def test_results_by_name(self):
        s = startup.parse_hyperfine(sample("hyperfine.json"), ["min", "full"])
        self.assertEqual(set(s), {"min", "full"})
        self.assertAlmostEqual(s["min"]["median_s"], 0.007973358)
        self.assertEqual(s["full"]["runs"], 5)
        self.assertLessEqual(s["min"]["min_s"], s["min"]["median_s"])

    def test_count_must_match(self):
        with self.assertRaises(ValueError):
            startup.parse_hyperfine(sample("hyperfine.json"), ["min"])


class ProcStatTest(unittest.TestCase):
    def test_apollod(self):
        self.assertEqual(servers.parse_proc_stat(sample("proc_stat_apollod.txt")), (19, 96))

    def test_name_with_spaces_and_parentheses(self):
        # comm "a) b (c": the fields are counted after the last ')'.
        self.assertEqual(servers.parse_proc_stat(sample("proc_stat_odd_name.txt")), (0, 1))

    def test_this_process(self):
        user, system = servers.cpu_seconds(os.getpid())
        self.assertGreaterEqual(user, 0)
        self.assertGreaterEqual(system, 0)
        self.assertIn(os.getpid(), servers.process_tree(os.getpid()))


class ServedTreeTest(unittest.TestCase):
    def test_tree_and_urls(self):
        with servers.ServingTree(sizes=[4096]) as tree:
            with open(os.path.join(tree.root, "index.html")) as f:
                self.assertEqual(f.read(), servers.ANSWER)
            self.assertEqual(len(servers.ANSWER), 17)
            path = os.path.join(tree.root, servers.file_url(4096).lstrip("/"))
            self.assertEqual(os.path.getsize(path), 4096)
        self.assertFalse(os.path.exists(tree.workdir))
        self.assertEqual(servers.file_url(256 * 1024), "/files/256k.bin")


class PerfReportTest(unittest.TestCase):
    """cpu_split on `perf report --children --sort symbol -g none` of the uring tier."""

    def test_split_by_call_graph(self):
        shares, total_ns = cpu_split.split(sample("perf_report_uring.txt"))
        self.assertEqual(total_ns, 2477000000)
        self.assertAlmostEqual(shares["send"], 0.716)     # tcp_sendmsg's children time
        self.assertAlmostEqual(shares["receive"], 0.063)  # tcp_recvmsg's
        self.assertAlmostEqual(shares["user"], 0.0377)    # the [.] symbols' self time
        self.assertAlmostEqual(sum(shares.values()), 1.0)

    def test_a_missing_subtree_counts_zero(self):
        text = "\n".join(l for l in sample("perf_report_uring.txt").splitlines()
                         if " tcp_recvmsg " not in l)
        shares, _ = cpu_split.split(text)
        self.assertEqual(shares["receive"], 0.0)
        self.assertAlmostEqual(shares["other"], 1 - 0.716 - 0.0377)


if __name__ == "__main__":
    unittest.main()
