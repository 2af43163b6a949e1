"""Unit tests for check_table.check_rows on a hand-built result of one load scenario: which
missing figures it excuses in a --quick run and which it never does. The case it was
written for (a loaded run, issue 32): nginx completed a 16 MiB download from disk at 0.39
requests/s, each response slower than wrk's --timeout, so wrk timed none and the p99 row
had no nginx figure and no ratio to nginx; h2o and lighttpd completed nothing."""

import contextlib
import io
import json
import unittest

from bench import load
from compare import check_table
from compare import table

SCENARIO = next(s for s in load.SCENARIOS if s["name"].startswith("16 MiB"))
NAME = SCENARIO["name"]
TIERS = ["full", "uring"]
COLUMNS = TIERS + table.PEERS


def served(rps, p99, cpu, timeouts=0, syscalls=None):
    """One server's combined load result in the scenario, in load.combine_rounds's form."""
    return {"rps": rps, "p99_us": p99, "p50_us": p99 and p99 // 2,
            "requests": round(rps), "success_share": 1.0, "wrk_output": [],
            "errors": {"connect": 0, "read": 0, "write": 0, "status": 0,
                       "timeout": timeouts},
            "cpu_us_per_request": cpu, "cpu_run_us_per_request": None,
            "cpu_user_us_per_request": cpu and 0.25 * cpu,
            "cpu_system_us_per_request": cpu and 0.75 * cpu,
            "syscalls_per_request": syscalls}


def result_of(servers, quick=True):
    """(result, markdown) as check_table.main reads them from table.json for servers:
    {column: served(...)}, the figures and wrk's reports placed by table.load_values
    itself, and through JSON (a CPU split's tuple comes back a list)."""
    values, wrk = {}, {}
    table.load_values({"scenarios": {NAME: servers}}, values, wrk, io.StringIO(), "test")
    rows = table.build_rows(table.load_rows([SCENARIO]), values, COLUMNS, "measured")
    details = {"quick": quick, "wrk": wrk, "access_log_tiers": TIERS,
               "files_served_by": COLUMNS, "callgrind_unsupported": {}}
    markdown = "\n".join("| %s | |" % row["label"] for row in rows)
    result = {"columns": COLUMNS, "tiers": TIERS, "rows": rows, "details": details}
    return json.loads(json.dumps(result)), markdown


def p99_row(result):
    return next(r for r in result["rows"] if r["key"] == "p99/" + NAME)


def failures_of(result, markdown):
    """The checks check_rows fails on result (its lines of ok and FAIL swallowed)."""
    del check_table.failures[:]
    with contextlib.redirect_stdout(io.StringIO()):
        check_table.check_rows(result, result["rows"], markdown,
                               table.load_rows([SCENARIO]))
    return list(check_table.failures)


def loaded_run(nginx_timeouts=3, quick=True):
    """The loaded run's figures: the tiers timed, nginx completing only untimed responses
    (with nginx_timeouts timeout errors), h2o and lighttpd completing none."""
    return result_of({
        "full": served(0.84, 1841266, 2499.0, syscalls=24.8),
        "uring": served(1.23, 1853789, 1375.0, syscalls=24.4),
        "nginx": served(0.39, None, 4703.0, timeouts=nginx_timeouts),
        "h2o": served(0.0, None, None),
        "lighttpd": served(0.0, None, None)}, quick)


class CheckRowsTest(unittest.TestCase):
    def test_every_figure_passes(self):
        result = result_of({
            "full": served(10.0, 400000, 900.0, syscalls=20.0),
            "uring": served(12.0, 380000, 800.0, syscalls=16.0),
            "nginx": served(8.0, 500000, 1000.0),
            "h2o": served(7.0, 520000, 1100.0),
            "lighttpd": served(9.0, 450000, 950.0)})
        self.assertEqual(failures_of(*result), [])

    def test_quick_run_excuses_untimed_responses_and_missing_peers(self):
        result, markdown = loaded_run()
        self.assertEqual(failures_of(result, markdown), [])
        self.assertIsNone(p99_row(result)["ratio_to_nginx"]["full"])
        self.assertIsNone(p99_row(result)["ratio_to_best_peer"]["full"])

    def test_missing_p99_without_wrk_timeouts_fails(self):
        failures = failures_of(*loaded_run(nginx_timeouts=0))
        self.assertIn("p99/%s / nginx is a number >= 0 (None)" % NAME, failures)
        self.assertIn("p99/%s / full ratio to nginx > 0 (None)" % NAME, failures)

    def test_full_run_excuses_nothing(self):
        failures = failures_of(*loaded_run(quick=False))
        self.assertIn("p99/%s / nginx is a number >= 0 (None)" % NAME, failures)
        self.assertIn("cpu/%s / h2o is a number >= 0 (None)" % NAME, failures)

    def test_an_untimed_cell_must_be_empty(self):
        result, markdown = loaded_run()
        p99_row(result)["values"]["nginx"] = 0
        self.assertIn("p99/%s / nginx: every response outlasted wrk's --timeout, so no p99"
                      " (0)" % NAME, failures_of(result, markdown))


if __name__ == "__main__":
    unittest.main()
