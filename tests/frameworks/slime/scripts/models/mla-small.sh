# Idioms from THUDM/slime@624b824:scripts/models/deepseek-v3.sh (multi-head latent attention:
# --q-lora-rank and --kv-lora-rank are attention sizes, not adapters; the layer count
# taken from the environment) and its for-loop that builds the MoE layer pattern.
NLAYERS="${MODEL_ARGS_NUM_LAYERS:-27}"
FIRST_DENSE=1
arr=()
for ((i = 0; i < NLAYERS; i++)); do
  if (( i < FIRST_DENSE )); then arr+=(0); else arr+=(1); fi
done
printf -v MOE_LAYER_FREQ "[%s]" "$(IFS=', '; echo "${arr[*]}")"

MODEL_ARGS=(
   --num-layers ${NLAYERS}
   --hidden-size 2048
   --multi-latent-attention
   --q-lora-rank 1536
   --kv-lora-rank 512
   --qk-head-dim 128
   --moe-layer-freq $MOE_LAYER_FREQ
   --num-experts 64
)
