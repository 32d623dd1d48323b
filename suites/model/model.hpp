// The full model: a dense-matching network of the kind that ran 170x slower on a T4 than on an
// A100. All-pairs correlation of two feature maps (the 4D volume (H, W, H, W) flattened to
// HW x HW), a softmax and soft-argmax giving a flow per pixel; and transformer encoder layers over
// the HW tokens of the first map, read by a linear head. One definition for every backend: the
// configuration, the deterministic inputs and weights, and the operations with their FLOPs and
// bytes (defined here, once).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ladder::model {

struct Config {
  std::string name;
  int height = 0, width = 0, channels = 0, layers = 0, heads = 0;
  std::int64_t tokens() const { return static_cast<std::int64_t>(height) * width; }  // L = HW
  int head_dim() const { return channels / heads; }
};

// tiny (tests: H != W, C not a multiple of the vector width or of heads x 8), small, medium, large.
std::optional<Config> named_config(const std::string& name);
// One of the configurations this program defines (tiny, small, medium, large): never missing.
Config defined_config(const std::string& name);
std::vector<std::string> config_names();
std::string validate(const Config& c);  // empty when usable

// Operation types the time is split by (each appears once per use in the forward pass).
enum class Op {
  corr_gemm,
  corr_softmax,
  soft_argmax,
  layernorm,
  qkv_gemm,
  attn_scores,
  attn_softmax,
  attn_values,
  out_gemm,
  mlp_gemm,
  gelu,
  residual,
  head_gemm,
  kCount
};
constexpr int kOps = static_cast<int>(Op::kCount);
const char* op_name(Op op);
// A matrix product (run in the backend's number format; everything else runs in f32).
bool is_gemm(Op op);
// Its work grows as (HW)^2: it touches the correlation volume or an attention head's scores.
bool grows_quadratically(Op op);

struct OpCost {
  double flops = 0;  // exp, tanh and division count one FLOP each
  double bytes = 0;  // compulsory f32 traffic: inputs read once, outputs written once
  double calls = 0;  // how many times the pass runs it (each pays a call's fixed cost)
  // The bytes one call touches: the level of memory that can hold them sets its bandwidth roof.
  // Less than bytes / calls where the operation works in place (a byte read, then written back).
  double working_set = 0;
};
// The whole forward pass's cost per operation type (summed over layers and heads).
std::vector<OpCost> op_costs(const Config& c);

// The most elements the two operands of one of the pass's GEMMs hold (m·k + k·n): the backends
// whose GEMMs take bf16 or f16 convert both operands into one buffer of this size. The
// attention values' L x L probabilities make it O((HW)^2) too.
double gemm_operand_elements(const Config& c);

// Bytes the forward pass holds at its peak with `element` bytes per number: the correlation
// volume (L x L), the attention scores (heads x L x L) and the token buffers; the weights and
// inputs besides; and, with `operand_element` > 0 (2 for bf16 or f16 GEMM operands), the
// conversion buffer. The O((HW)^2) terms are what runs a device out of memory.
double footprint_bytes(const Config& c, int element = 4, int operand_element = 0);

// The smallest square resolution H = W (in steps of 8) whose footprint exceeds `bytes`.
int first_resolution_over(double bytes, int channels, int layers, int heads, int element = 4);

// "H,W,C,layers,heads" from the command line; an error message instead where it is not valid.
std::optional<Config> parse_config(const std::string& text, std::string& error);

// Inputs f1, f2 as (C, H, W) row-major, and the weights, all deterministic from the seed.
struct Weights {
  struct Layer {
    std::vector<float> ln1_gamma, ln1_beta, w_qkv, b_qkv, w_out, b_out, ln2_gamma, ln2_beta, w_mlp1, b_mlp1, w_mlp2, b_mlp2;
  };
  std::vector<Layer> layers;
  std::vector<float> w_head, b_head;  // C x 2
};
struct Inputs {
  std::vector<float> f1, f2;
};
Weights make_weights(const Config& c, std::uint64_t seed = 7);
Inputs make_inputs(const Config& c, std::uint64_t seed = 11);

// What every backend produces: a 2-D flow per pixel (soft-argmax match minus the pixel's own
// position) and the head's 2 outputs per token.
struct Output {
  std::vector<float> flow, head;  // L x 2 each
};

constexpr int kHeadOutputs = 2;

}  // namespace ladder::model
