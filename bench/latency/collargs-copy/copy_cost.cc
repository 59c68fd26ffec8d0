// How much a null shared_ptr member costs a CollArgs-like struct copied by value per call.
#include <chrono>
#include <cstdio>
#include <memory>
#include <vector>
struct V {
  std::vector<size_t> a;
};
struct WithPtr {
  int kind;
  const void* s;
  void* r;
  size_t count;
  int type, op, root;
  bool a, b, c, d;
  std::shared_ptr<const V> v;
};
struct Without {
  int kind;
  const void* s;
  void* r;
  size_t count;
  int type, op, root;
  bool a, b, c, d;
  const V* v;
};
template <typename T>
__attribute__((noinline)) size_t Use(T x) {
  return x.count + (x.v ? 1 : 0);
}
template <typename T>
double Run(long n) {
  T t{};
  t.count = 3;
  size_t sum = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < n; ++i) {
    T c = t;
    c.count = i;
    sum += Use(c);
    asm volatile("" : : "r"(sum));
  }
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / n;
}
int main() {
  const long n = 200000000;
  for (int k = 0; k < 3; ++k)
    printf("with shared_ptr %.3f ns  raw pointer %.3f ns per copy+call\n", Run<WithPtr>(n),
           Run<Without>(n));
}
