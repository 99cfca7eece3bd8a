# Idiom from huggingface/trl@f2cd577:examples/scripts/ssd_eval.py (an evaluation: a dataclass of
# arguments parsed by TrlParser, vLLM's offline LLM() built from them, no trainer; the launch in a
# fenced block of the docstring).
# Written for sphinx-rlresources' tests; not a copy.

"""
Evaluate a checkpoint on a code benchmark.

```bash
python examples/scripts/code_eval.py \\
    --model_name_or_path Qwen/Qwen3-8B \\
    --n 4 \\
    --output_file outputs/eval.json
```
"""

from dataclasses import dataclass, field

from trl import TrlParser
from vllm import LLM, SamplingParams


@dataclass
class CodeEvalArguments:
    model_name_or_path: str = field(metadata={"help": "The model to evaluate."})
    output_file: str = field(metadata={"help": "Where the results go."})
    n: int = field(default=1, metadata={"help": "Samples per problem."})
    tensor_parallel_size: int = field(default=2, metadata={"help": "vLLM tensor parallel size."})
    memory: float = 0.85


def main():
    (args,) = TrlParser(CodeEvalArguments).parse_args_and_config()
    llm = LLM(
        model=args.model_name_or_path,
        tensor_parallel_size=args.tensor_parallel_size,
        gpu_memory_utilization=args.memory,
    )
    llm.generate(["def f():"], SamplingParams(n=args.n))


if __name__ == "__main__":
    main()
