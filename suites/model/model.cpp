#include "model.hpp"

#include <stdexcept>
#include <algorithm>
#include <cmath>

namespace ladder::model {

namespace {

float uniform(std::uint64_t seed, std::uint64_t index) {  // in [-1, 1), from a hash
  std::uint64_t x = seed * 0x9e3779b97f4a7c15ull + index * 0xbf58476d1ce4e5b9ull + 1;
  x ^= x >> 31;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 29;
  return static_cast<float>(static_cast<double>(x >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

std::vector<float> filled(std::size_t count, std::uint64_t seed, float scale, float offset = 0) {
  std::vector<float> v(count);
  for (std::size_t i = 0; i < count; ++i) v[i] = offset + scale * uniform(seed, i);
  return v;
}

}  // namespace

std::optional<Config> named_config(const std::string& name) {
  if (name == "tiny") return Config{"tiny", 4, 5, 12, 2, 2};
  if (name == "small") return Config{"small", 16, 16, 64, 2, 4};
  if (name == "medium") return Config{"medium", 32, 32, 128, 4, 8};
  if (name == "large") return Config{"large", 64, 64, 256, 4, 8};
  return std::nullopt;
}

Config defined_config(const std::string& name) {
  if (auto c = named_config(name)) return *c;
  throw std::logic_error("no model configuration named " + name);
}

std::vector<std::string> config_names() { return {"tiny", "small", "medium", "large"}; }

std::string validate(const Config& c) {
  if (c.height <= 0 || c.width <= 0 || c.channels <= 0 || c.layers < 0 || c.heads <= 0)
    return "H, W, C and heads must be positive, layers not negative";
  if (c.channels % c.heads != 0) return "C must be a multiple of heads";
  return {};
}

const char* op_name(Op op) {
  static const char* names[] = {"corr_gemm",   "corr_softmax", "soft_argmax", "layernorm", "qkv_gemm",
                                "attn_scores", "attn_softmax", "attn_values", "out_gemm",  "mlp_gemm",
                                "gelu",        "residual",     "head_gemm"};
  return names[static_cast<int>(op)];
}

bool is_gemm(Op op) {
  return op == Op::corr_gemm || op == Op::qkv_gemm || op == Op::attn_scores || op == Op::attn_values || op == Op::out_gemm ||
         op == Op::mlp_gemm || op == Op::head_gemm;
}

bool grows_quadratically(Op op) {
  return op == Op::corr_gemm || op == Op::corr_softmax || op == Op::soft_argmax || op == Op::attn_scores ||
         op == Op::attn_softmax || op == Op::attn_values;
}

std::vector<OpCost> op_costs(const Config& c) {
  const double L = static_cast<double>(c.tokens()), C = c.channels, H = c.heads, layers = c.layers, f = 4;
  std::vector<OpCost> cost(kOps);
  auto add = [&](Op op, double flops, double bytes) {
    cost[static_cast<int>(op)].flops += flops;
    cost[static_cast<int>(op)].bytes += bytes;
  };
  auto calls = [&](Op op, double n) { cost[static_cast<int>(op)].calls = n; };
  for (Op op : {Op::corr_gemm, Op::corr_softmax, Op::soft_argmax, Op::head_gemm}) calls(op, 1);
  for (Op op : {Op::qkv_gemm, Op::attn_softmax, Op::out_gemm, Op::gelu}) calls(op, layers);
  calls(Op::layernorm, 2 * layers);
  calls(Op::mlp_gemm, 2 * layers);
  calls(Op::attn_scores, layers * H);
  calls(Op::attn_values, layers * H);
  calls(Op::residual, 2 * layers + 1);  // two adds a layer, and the transpose that starts the stream
  add(Op::corr_gemm, 2 * L * L * C, f * (2 * L * C + L * L));
  add(Op::corr_softmax, 5 * L * L, f * 2 * L * L);               // max, subtract, exp, sum, divide
  add(Op::soft_argmax, 4 * L * L + 2 * L, f * (L * L + 2 * L));  // two multiply-adds per pair
  add(Op::layernorm, layers * 2 * 8 * L * C, layers * 2 * f * (2 * L * C + 2 * C));
  add(Op::qkv_gemm, layers * 2 * L * C * 3 * C, layers * f * (L * C + 3 * C * C + 3 * C + 3 * L * C));
  add(Op::attn_scores, layers * 2 * L * L * C, layers * f * (2 * L * C + H * L * L));
  add(Op::attn_softmax, layers * 5 * H * L * L, layers * f * 2 * H * L * L);
  add(Op::attn_values, layers * 2 * L * L * C, layers * f * (H * L * L + 2 * L * C));
  add(Op::out_gemm, layers * 2 * L * C * C, layers * f * (2 * L * C + C * C + C));
  add(Op::mlp_gemm, layers * 2 * (2 * L * C * 4 * C), layers * f * (2 * (L * C + 4 * C * C + L * 4 * C) + 5 * C));
  add(Op::gelu, layers * 8 * L * 4 * C, layers * f * 2 * L * 4 * C);
  add(Op::residual, layers * 2 * L * C, layers * f * 2 * 3 * L * C + f * 2 * L * C);  // + the stream's start: f1 transposed
  add(Op::head_gemm, 2 * L * C * kHeadOutputs, f * (L * C + C * kHeadOutputs + kHeadOutputs + L * kHeadOutputs));
  for (auto& op : cost) op.working_set = op.calls > 0 ? op.bytes / op.calls : 0;
  for (Op op : {Op::corr_softmax, Op::attn_softmax, Op::gelu}) cost[static_cast<int>(op)].working_set /= 2;  // in place
  cost[static_cast<int>(Op::residual)].working_set = f * 2 * L * C;  // x and y, or f1 and x
  return cost;
}

double gemm_operand_elements(const Config& c) {
  const double L = static_cast<double>(c.tokens()), C = c.channels, dh = c.head_dim();
  const auto operands = [](double m, double n, double k) { return m * k + k * n; };
  double largest = std::max(operands(L, L, C), operands(L, kHeadOutputs, C));  // correlation, head
  if (c.layers > 0)
    for (double e : {operands(L, 3 * C, C), operands(L, L, dh), operands(L, dh, L), operands(L, C, C), operands(L, 4 * C, C),
                     operands(L, C, 4 * C)})  // qkv, scores, values, out, mlp1, mlp2
      largest = std::max(largest, e);
  return largest;
}

double footprint_bytes(const Config& c, int element, int operand_element) {
  const double L = static_cast<double>(c.tokens()), C = c.channels;
  const double volumes = L * L * (1 + c.heads);           // correlation + attention scores
  const double tokens = L * C * (2 + 2 + 3 + 1 + 1 + 4);  // f1, f2, x, h, qkv, attn, tmp, mlp
  const double weights = c.layers * (12.0 * C * C + 13 * C) + 2 * C + 2;
  return element * (volumes + tokens + weights + 4 * L)  // + flow and head outputs
         + operand_element * gemm_operand_elements(c);
}

int first_resolution_over(double bytes, int channels, int layers, int heads, int element) {
  for (int side = 8;; side += 8)
    if (footprint_bytes(Config{"sweep", side, side, channels, layers, heads}, element) > bytes) return side;
}

std::optional<Config> parse_config(const std::string& text, std::string& error) {
  Config c;
  c.name = "custom";
  int* fields[] = {&c.height, &c.width, &c.channels, &c.layers, &c.heads};
  std::size_t start = 0;
  for (int i = 0; i < 5; ++i) {
    const std::size_t comma = text.find(',', start);
    const std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (part.empty() || part.size() > 6 || part.find_first_not_of("0123456789") != std::string::npos) {
      error = "--model needs H,W,C,layers,heads as five non-negative integers, got '" + text + "'";
      return std::nullopt;
    }
    *fields[i] = std::stoi(part);
    if ((comma == std::string::npos) != (i == 4)) {
      error = "--model needs exactly five numbers: H,W,C,layers,heads, got '" + text + "'";
      return std::nullopt;
    }
    start = comma + 1;
  }
  if (error = validate(c); !error.empty()) return std::nullopt;
  return c;
}

Weights make_weights(const Config& c, std::uint64_t seed) {
  const std::size_t C = c.channels;
  const float in_scale = 1.0f / std::sqrt(static_cast<float>(C)), hidden_scale = 1.0f / std::sqrt(4.0f * C);
  Weights w;
  for (int l = 0; l < c.layers; ++l) {
    const std::uint64_t s = seed + 100 * (l + 1);
    w.layers.push_back({filled(C, s + 1, 0.1f, 1.0f), filled(C, s + 2, 0.1f), filled(C * 3 * C, s + 3, in_scale),
                        filled(3 * C, s + 4, 0.02f), filled(C * C, s + 5, in_scale), filled(C, s + 6, 0.02f),
                        filled(C, s + 7, 0.1f, 1.0f), filled(C, s + 8, 0.1f), filled(C * 4 * C, s + 9, in_scale),
                        filled(4 * C, s + 10, 0.02f), filled(4 * C * C, s + 11, hidden_scale), filled(C, s + 12, 0.02f)});
  }
  w.w_head = filled(C * kHeadOutputs, seed + 1, in_scale);
  w.b_head = filled(kHeadOutputs, seed + 2, 0.02f);
  return w;
}

Inputs make_inputs(const Config& c, std::uint64_t seed) {
  const std::size_t n = static_cast<std::size_t>(c.channels) * c.tokens();
  return {filled(n, seed, 1.0f), filled(n, seed + 1, 1.0f)};
}

}  // namespace ladder::model
