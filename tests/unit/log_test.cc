#include "core/log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/params.h"

namespace weft {
namespace {

TEST(Log, ExpandsHostAndPid) {
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  EXPECT_EQ(ExpandPathPattern("/tmp/w.%h.%p.log"),
            "/tmp/w." + std::string(host) + "." + std::to_string(getpid()) + ".log");
  EXPECT_EQ(ExpandPathPattern("100%"), "100%");
}

TEST(Log, ParsesLevelsAndSubsystems) {
  LogLevel l;
  EXPECT_TRUE(ParseLogLevel("info", &l));
  EXPECT_EQ(l, LogLevel::kInfo);
  EXPECT_FALSE(ParseLogLevel("loud", &l));
  EXPECT_EQ(ParseSubsysMask("INIT,COLL"), kInit | kColl);
  EXPECT_EQ(ParseSubsysMask("^COLL"), ~static_cast<uint32_t>(kColl));
  EXPECT_EQ(ParseSubsysMask("ALL"), kAll);
}

TEST(Log, WritesFilteredLinesToTheDebugFile) {
  std::string path = "/tmp/weft_log_test." + std::to_string(getpid());
  setenv("WEFT_DEBUG", "INFO", 1);
  setenv("WEFT_DEBUG_SUBSYS", "PLAN", 1);
  setenv("WEFT_DEBUG_FILE", (path + ".%p").c_str(), 1);
  ReloadParams();
  WEFT_INFO(kPlan, "plan line %d", 7);
  WEFT_INFO(kColl, "filtered out");
  WEFT_TRACE(kPlan, "too verbose");
  unsetenv("WEFT_DEBUG");
  unsetenv("WEFT_DEBUG_SUBSYS");
  unsetenv("WEFT_DEBUG_FILE");
  ReloadParams();
  std::string file = path + "." + std::to_string(getpid());
  std::ifstream f(file);
  std::stringstream ss;
  ss << f.rdbuf();
  std::remove(file.c_str());
  // The line reads "weft INFO <msg> [SUBSYS file:line]".
  EXPECT_NE(ss.str().find("weft INFO plan line 7 [PLAN log_test.cc:"), std::string::npos) << ss.str();
  EXPECT_EQ(ss.str().find("filtered out"), std::string::npos);
  EXPECT_EQ(ss.str().find("too verbose"), std::string::npos);
}

}  // namespace
}  // namespace weft
