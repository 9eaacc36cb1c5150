# SPDX-License-Identifier: Apache-2.0
"""The lines of ASan's warning about an exception on a stack it does not know (a SystemC thread:
Debian's libsystemc has no fiber annotations; google/sanitizers#189). The sanitizer job's
one-line checks (bad_input_test.py and param_edges_test.py, --asan-fiber-warning) drop them; a
real sanitizer report still fails a check."""
import re

LINES = re.compile(r"ASan is ignoring requested __asan_handle_no_return|"
                   r"^False positive error reports may follow$|"
                   r"^For details see https://github.com/google/sanitizers/issues/189$")
