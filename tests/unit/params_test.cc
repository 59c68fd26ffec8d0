#include "core/params.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace weft {
namespace {

TEST(Params, ReadsEnvironmentAndRejectsMalformedIntegers) {
  setenv("WEFT_VIRTUAL_NODES", "3", 1);
  setenv("WEFT_NATIVE_CHUNK_BYTES", "12abc", 1);
  ReloadParams();
  EXPECT_EQ(GetParams().WEFT_VIRTUAL_NODES, 3);
  EXPECT_EQ(GetParams().WEFT_NATIVE_CHUNK_BYTES, Params().WEFT_NATIVE_CHUNK_BYTES);
  unsetenv("WEFT_VIRTUAL_NODES");
  unsetenv("WEFT_NATIVE_CHUNK_BYTES");
  ReloadParams();
  EXPECT_EQ(GetParams().WEFT_VIRTUAL_NODES, 1);
}

TEST(Params, ListShowsEveryKnobWithItsValue) {
  setenv("WEFT_DEBUG_SUBSYS", "INIT,COLL", 1);
  ReloadParams();
  bool seen = false;
  for (const auto& p : ListParams()) {
    if (p.name == "WEFT_DEBUG_SUBSYS") {
      seen = true;
      EXPECT_EQ(p.value, "INIT,COLL");
      EXPECT_EQ(p.default_value, "ALL");
      EXPECT_TRUE(p.set_in_env);
    }
    EXPECT_FALSE(p.doc.empty()) << p.name;
  }
  EXPECT_TRUE(seen);
  unsetenv("WEFT_DEBUG_SUBSYS");
  ReloadParams();
}

// docs/env.md embeds the table generated from params.def; they must not drift apart.
TEST(Params, DocsEnvMatchesParamsDef) {
  std::ifstream f(std::string(WEFT_SOURCE_DIR) + "/docs/env.md");
  ASSERT_TRUE(f.good()) << "docs/env.md missing";
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_NE(ss.str().find(ParamsMarkdown()), std::string::npos)
      << "docs/env.md is out of date; regenerate the table with: weft-info --env-markdown\n"
      << ParamsMarkdown();
}

}  // namespace
}  // namespace weft
