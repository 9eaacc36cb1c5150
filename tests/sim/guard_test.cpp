// SPDX-License-Identifier: Apache-2.0
// The Reaper (sim/guard.h): a run that stops early unwinds every suspended
// SystemC thread, so what their frames own is destroyed (no leak on a fault
// path), and the first failure is still the one reported.
#include <memory>
#include <stdexcept>

#include <gtest/gtest.h>
#include <systemc>

#include "fg_test.h"
#include "sim/error.h"
#include "sim/guard.h"

namespace fg {
namespace {

int g_destroyed = 0;
struct Owned {
  ~Owned() { ++g_destroyed; }
};

// Threads that never finish by themselves: one waits on an event nobody
// notifies, one waits in a timed loop; a third fails.
struct Threads : sc_core::sc_module {
  sc_core::sc_event never;
  explicit Threads(sc_core::sc_module_name n) : sc_module(n) {
    SC_HAS_PROCESS(Threads);
    SC_THREAD(stuck);
    SC_THREAD(looping);
    SC_THREAD(failing);
  }
  void stuck() {
    run_guarded([&] {
      auto o = std::make_unique<Owned>();
      wait(never);
    });
  }
  void looping() {
    run_guarded([&] {
      Owned o;
      for (;;) wait(10, sc_core::SC_NS);
    });
  }
  void failing() {
    run_guarded([&] {
      wait(25, sc_core::SC_NS);
      throw SimFault("the failure");
    });
  }
};

TEST(Reaper, AFailureUnwindsEverySuspendedThread) {
  FG_REQUIRE_FRESH_KERNEL();
  test::strict_systemc();
  Threads t("threads");
  Reaper reaper("reaper");
  sc_core::sc_start();
  EXPECT_EQ(sc_core::sc_get_status(), sc_core::SC_STOPPED);
  EXPECT_TRUE(reaper.reaped());
  EXPECT_EQ(reaper.killed(), 2u);
  EXPECT_EQ(g_destroyed, 2);  // both frames' objects
  EXPECT_EQ(sc_core::sc_time_stamp(), sc_core::sc_time(25, sc_core::SC_NS));
  ASSERT_TRUE(first_failure());
  try {
    std::rethrow_exception(first_failure());
  } catch (const SimFault& e) {
    EXPECT_STREQ(e.what(), "the failure");  // not the unwinding
  }
}

struct Idle : sc_core::sc_module {
  explicit Idle(sc_core::sc_module_name n) : sc_module(n) {
    SC_HAS_PROCESS(Idle);
    SC_THREAD(looping);
  }
  void looping() {
    run_guarded([&] {
      Owned o;
      for (;;) wait(10, sc_core::SC_NS);
    });
  }
};

TEST(Reaper, AWatchdogStopFromSystemCsMainUnwindsToo) {
  FG_REQUIRE_FRESH_KERNEL();
  test::strict_systemc();
  Idle t("idle");
  Reaper reaper("reaper");
  sc_core::sc_start(100, sc_core::SC_NS);  // the watchdog: paused with the thread suspended
  EXPECT_EQ(g_destroyed, 0);
  reaper.reap();
  EXPECT_EQ(sc_core::sc_get_status(), sc_core::SC_STOPPED);
  EXPECT_EQ(reaper.killed(), 1u);
  EXPECT_EQ(g_destroyed, 1);
  EXPECT_FALSE(first_failure());
}

}  // namespace
}  // namespace fg
