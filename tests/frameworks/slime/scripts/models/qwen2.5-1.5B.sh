# Idiom from THUDM/slime@624b824:scripts/models/qwen3-4B.sh (one MODEL_ARGS array, sourced by the
# run scripts, with a default the caller may override through the environment).
MODEL_ARGS=(
   --swiglu
   --num-layers 28
   --hidden-size 1536
   --ffn-hidden-size 8960
   --num-attention-heads 12
   --group-query-attention
   --num-query-groups 2
   --normalization "RMSNorm"
   --rotary-base "${MODEL_ARGS_ROTARY_BASE:-1000000}"
   --vocab-size 151936
)
