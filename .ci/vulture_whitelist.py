"""Names that vulture (the dead-code check of ``make lint``) cannot see used: each is read by name.

Written as vulture's own whitelists are (``_.name``: vulture matches names, not
objects, so one line keeps every attribute or variable of that name), and so not
meant to run; ruff leaves this file out.  Add a line only for a name a framework
reads on its own, and say which; code that nothing calls is removed instead.
"""

# docutils reads a directive's class attributes by name.
_.required_arguments
_.optional_arguments
_.final_argument_whitespace
_.has_content
_.option_spec
# Sphinx calls an extension's setup(), reads an error class's category and sets the
# build's exit status; an event handler's arguments are fixed by the event, used or not.
_.setup
_.category
_.statuscode
_.pagename
_.templatename
_.removed
# Sphinx reads a domain's data and version by name and calls its hooks on every page read or merged.
_.initial_data
_.data_version
_.clear_doc
_.merge_domaindata
# Run's fields are read by name: Run.settings() lists them; inspect and the checks print each.
_.train_pp
_.train_ep
_.train_cp
_.ulysses_sp
_.lora_targets
_.mini_batch_size
_.micro_batch_per_gpu
_.log_prob_micro_batch_per_gpu
_.dynamic_batch
_.max_token_len_per_gpu
_.ref_param_offload
_.entropy_checkpointing
_.free_cache_engine
_.max_num_seqs
_.fp8_rollout
# pytest reads these module names and calls its hooks by name; the standard library calls these overridden methods;
# selenium reads the options' attribute; transformers and vLLM read a model config's.
_.pytest_plugins
_.pytest_unconfigure
_.pytestmark
_.log_message
_.handle_starttag
_.binary_location
_.architectures
