"""The catalogue of GPUs, models, kernels, engines for sims. GENERATED: edit the YAML.

Written from content/catalogue/{gpus,models,kernels,engines}/*.yaml by
scripts/ridgepoint/catalogue/sims_module.py whenever `make check`, `make build` or `make serve`
finds the YAML changed (tests/sims/test_catalogue_data.py keeps the two in sync).
GPU figures are in base units (FLOP/s, bytes, bytes/s); a kernel profile's constants are
shares and seconds, an engine's overheads seconds (the sources of each are in its YAML). A
model is its config.json fields as written. Every figure's source is in the YAML and on the
catalogue page.
"""

GPUS = {
    'a100': {
        'name': 'NVIDIA A100 SXM 80 GB',
        'dense_flops': {
            'bf16': 312000000000000.0,
        },
        'hbm_bytes': 80000000000.0,
        'hbm_bytes_per_s': 2039000000000.0,
        'scale_up_link': 'NVLink 3 through NVSwitch',
        'scale_up_bytes_per_s': 300000000000.0,
        'scale_up_gpus': 8,
        'topology': 'switch',
        'host_link': 'PCIe Gen4 x16',
        'host_link_bytes_per_s': 32000000000.0,
        'scale_out_bytes_per_s': 25000000000.0,
        'kernels': 'ampere',
        'price_per_gpu_hour': 1.6,
        'price_note': (
            '1.60 USD/h, Hyperstack GPU pricing, On-Demand rate card '
            '(https://www.hyperstack.cloud/gpu-pricing), read 2026-08-26 as transcribed verbatim '
            'in api-evangelist/nexgen-cloud, plans/nexgen-cloud-plans-pricing.yml: On-Demand: '
            'NVIDIA A100 SXM, 80 GB VRAM, price_per_hour 1.60 (read 2026-08-26)'
        ),
    },
    'b200': {
        'name': 'NVIDIA B200 (HGX B200)',
        'dense_flops': {
            'bf16': 2250000000000000.0,
            'fp8': 4500000000000000.0,
            'fp4': 9000000000000000.0,
        },
        'hbm_bytes': 180000000000.0,
        'hbm_bytes_per_s': 8000000000000.0,
        'scale_up_link': 'NVLink 5 through NVSwitch',
        'scale_up_bytes_per_s': 900000000000.0,
        'scale_up_gpus': 8,
        'topology': 'switch',
        'host_link': None,
        'host_link_bytes_per_s': None,
        'scale_out_bytes_per_s': 50000000000.0,
        'kernels': 'blackwell',
        'price_per_gpu_hour': 6.0,
        'price_note': (
            '6.00 USD/h, Hyperstack GPU pricing, On-Demand rate card '
            '(https://www.hyperstack.cloud/gpu-pricing), read 2026-08-26 as transcribed verbatim '
            'in api-evangelist/nexgen-cloud, plans/nexgen-cloud-plans-pricing.yml: On-Demand: '
            'NVIDIA B200, 192 GB VRAM, price_per_hour 6.00 (read 2026-08-26)'
        ),
    },
    'b300': {
        'name': 'NVIDIA B300 (HGX B300)',
        'dense_flops': {
            'bf16': 2250000000000000.0,
            'fp8': 4500000000000000.0,
            'fp4': 1.3125e+16,
        },
        'hbm_bytes': 288000000000.0,
        'hbm_bytes_per_s': 8000000000000.0,
        'scale_up_link': 'NVLink 5 through NVSwitch',
        'scale_up_bytes_per_s': 900000000000.0,
        'scale_up_gpus': 8,
        'topology': 'switch',
        'host_link': None,
        'host_link_bytes_per_s': None,
        'scale_out_bytes_per_s': 100000000000.0,
        'kernels': 'blackwell',
        'price_per_gpu_hour': None,
        'price_note': 'the catalogue gives no price for it',
    },
    'gb200-nvl72': {
        'name': 'NVIDIA GB200 NVL72 (one Blackwell GPU)',
        'dense_flops': {
            'bf16': 2500000000000000.0,
            'fp8': 5000000000000000.0,
            'fp4': 1e+16,
        },
        'hbm_bytes': 186000000000.0,
        'hbm_bytes_per_s': 8000000000000.0,
        'scale_up_link': (
            'NVLink 5 through NVLink Switch trays, one domain across the rack'
        ),
        'scale_up_bytes_per_s': 900000000000.0,
        'scale_up_gpus': 72,
        'topology': 'switch',
        'host_link': None,
        'host_link_bytes_per_s': None,
        'scale_out_bytes_per_s': 50000000000.0,
        'kernels': 'blackwell',
        'price_per_gpu_hour': None,
        'price_note': 'the catalogue gives no price for it',
    },
    'gb300-nvl72': {
        'name': 'NVIDIA GB300 NVL72 (one Blackwell Ultra GPU)',
        'dense_flops': {
            'bf16': 2500000000000000.0,
            'fp8': 5000000000000000.0,
            'fp4': 1.5e+16,
        },
        'hbm_bytes': 288000000000.0,
        'hbm_bytes_per_s': 8000000000000.0,
        'scale_up_link': (
            'NVLink 5 through NVLink Switch trays, one domain across the rack'
        ),
        'scale_up_bytes_per_s': 900000000000.0,
        'scale_up_gpus': 72,
        'topology': 'switch',
        'host_link': None,
        'host_link_bytes_per_s': None,
        'scale_out_bytes_per_s': None,
        'kernels': 'blackwell',
        'price_per_gpu_hour': None,
        'price_note': 'the catalogue gives no price for it',
    },
    'h100': {
        'name': 'NVIDIA H100 SXM 80 GB',
        'dense_flops': {
            'bf16': 989000000000000.0,
            'fp8': 1979000000000000.0,
        },
        'hbm_bytes': 80000000000.0,
        'hbm_bytes_per_s': 3350000000000.0,
        'scale_up_link': 'NVLink 4 through NVSwitch',
        'scale_up_bytes_per_s': 450000000000.0,
        'scale_up_gpus': 8,
        'topology': 'switch',
        'host_link': 'PCIe Gen5 x16',
        'host_link_bytes_per_s': 64000000000.0,
        'scale_out_bytes_per_s': 50000000000.0,
        'kernels': 'hopper',
        'price_per_gpu_hour': 3.2,
        'price_note': (
            '3.20 USD/h, Hyperstack GPU pricing, On-Demand rate card '
            '(https://www.hyperstack.cloud/gpu-pricing), read 2026-08-26 as transcribed verbatim '
            'in api-evangelist/nexgen-cloud, plans/nexgen-cloud-plans-pricing.yml: On-Demand: '
            'NVIDIA H100 SXM, 80 GB VRAM, price_per_hour 3.20 (read 2026-08-26)'
        ),
    },
    'h20': {
        'name': 'NVIDIA H20 96 GB',
        'dense_flops': {
            'bf16': 148000000000000.0,
            'fp8': 294000000000000.0,
        },
        'hbm_bytes': 96000000000.0,
        'hbm_bytes_per_s': 4000000000000.0,
        'scale_up_link': 'NVLink 4 through NVSwitch',
        'scale_up_bytes_per_s': 450000000000.0,
        'scale_up_gpus': 8,
        'topology': 'switch',
        'host_link': 'PCIe Gen5 x16',
        'host_link_bytes_per_s': 64000000000.0,
        'scale_out_bytes_per_s': None,
        'kernels': 'hopper',
        'price_per_gpu_hour': None,
        'price_note': 'the catalogue gives no price for it',
    },
    'h200': {
        'name': 'NVIDIA H200 SXM 141 GB',
        'dense_flops': {
            'bf16': 989000000000000.0,
            'fp8': 1979000000000000.0,
        },
        'hbm_bytes': 141000000000.0,
        'hbm_bytes_per_s': 4800000000000.0,
        'scale_up_link': 'NVLink 4 through NVSwitch',
        'scale_up_bytes_per_s': 450000000000.0,
        'scale_up_gpus': 8,
        'topology': 'switch',
        'host_link': 'PCIe Gen5 x16',
        'host_link_bytes_per_s': 64000000000.0,
        'scale_out_bytes_per_s': 50000000000.0,
        'kernels': 'hopper',
        'price_per_gpu_hour': 3.99,
        'price_note': (
            '3.99 USD/h, Hyperstack GPU pricing, On-Demand rate card '
            '(https://www.hyperstack.cloud/gpu-pricing), read 2026-08-26 as transcribed verbatim '
            'in api-evangelist/nexgen-cloud, plans/nexgen-cloud-plans-pricing.yml: On-Demand: '
            'NVIDIA H200 SXM, 141 GB VRAM, price_per_hour 3.99 (read 2026-08-26)'
        ),
    },
    'h800': {
        'name': 'NVIDIA H800 SXM 80 GB',
        'dense_flops': {
            'bf16': 989000000000000.0,
            'fp8': 1978000000000000.0,
        },
        'hbm_bytes': 85899345920.0,
        'hbm_bytes_per_s': 3350000000000.0,
        'scale_up_link': (
            'NVLink 4 through NVSwitch, cut to 400 GB/s (both directions together)'
        ),
        'scale_up_bytes_per_s': 200000000000.0,
        'scale_up_gpus': 8,
        'topology': 'switch',
        'host_link': 'PCIe Gen5 x16',
        'host_link_bytes_per_s': 64000000000.0,
        'scale_out_bytes_per_s': 50000000000.0,
        'kernels': 'hopper',
        'price_per_gpu_hour': None,
        'price_note': 'the catalogue gives no price for it',
    },
    'l40s': {
        'name': 'NVIDIA L40S',
        'dense_flops': {
            'bf16': 362050000000000.0,
            'fp8': 733000000000000.0,
        },
        'hbm_bytes': 48000000000.0,
        'hbm_bytes_per_s': 864000000000.0,
        'scale_up_link': 'no NVLink',
        'scale_up_bytes_per_s': 32000000000.0,
        'scale_up_gpus': 1,
        'topology': 'switch',
        'host_link': 'PCIe Gen4 x16',
        'host_link_bytes_per_s': 32000000000.0,
        'scale_out_bytes_per_s': None,
        'kernels': 'ada',
        'price_per_gpu_hour': None,
        'price_note': (
            'No public on-demand list price for the L40S (48 GB) was found among the price lists '
            'searched (Hyperstack lists the L40, a different card); give one to plan with it. '
            '(searched 2026-12-06)'
        ),
    },
    'mi300x': {
        'name': 'AMD Instinct MI300X',
        'dense_flops': {
            'bf16': 1307400000000000.0,
            'fp8': 2614900000000000.0,
        },
        'hbm_bytes': 192000000000.0,
        'hbm_bytes_per_s': 5300000000000.0,
        'scale_up_link': (
            'Infinity Fabric, a direct link to each of the seven other GPUs'
        ),
        'scale_up_bytes_per_s': 448000000000.0,
        'scale_up_gpus': 8,
        'topology': 'mesh',
        'host_link': 'PCIe Gen5 x16',
        'host_link_bytes_per_s': 64000000000.0,
        'scale_out_bytes_per_s': None,
        'kernels': 'cdna3',
        'price_per_gpu_hour': 2.59,
        'price_note': (
            '2.59 USD/h, DigitalOcean API list price, on-demand, SKU gpu-mi300x1-192gb (1x AMD '
            'MI300X), as collected in the tokenwatt/gpu-cloud-prices dataset, snapshot 2026-10-07: '
            'AMD MI300X, gpus 1, price_hr 2.59, market on-demand, provider DigitalOcean, via '
            'DigitalOcean API (list price) (read 2026-10-07)'
        ),
    },
    'mi325x': {
        'name': 'AMD Instinct MI325X',
        'dense_flops': {
            'bf16': 1307400000000000.0,
            'fp8': 2614900000000000.0,
        },
        'hbm_bytes': 256000000000.0,
        'hbm_bytes_per_s': 6000000000000.0,
        'scale_up_link': (
            'Infinity Fabric, a direct link to each of the seven other GPUs'
        ),
        'scale_up_bytes_per_s': 448000000000.0,
        'scale_up_gpus': 8,
        'topology': 'mesh',
        'host_link': None,
        'host_link_bytes_per_s': None,
        'scale_out_bytes_per_s': None,
        'kernels': 'cdna3',
        'price_per_gpu_hour': None,
        'price_note': 'the catalogue gives no price for it',
    },
    'mi355x': {
        'name': 'AMD Instinct MI355X',
        'dense_flops': {
            'bf16': 2500000000000000.0,
            'fp8': 5000000000000000.0,
            'fp4': 1.01e+16,
        },
        'hbm_bytes': 288000000000.0,
        'hbm_bytes_per_s': 8000000000000.0,
        'scale_up_link': (
            'Infinity Fabric (XGMI), a direct link to each of the seven other GPUs'
        ),
        'scale_up_bytes_per_s': 535500000000.0,
        'scale_up_gpus': 8,
        'topology': 'mesh',
        'host_link': 'PCIe Gen5 x16',
        'host_link_bytes_per_s': 63000000000.0,
        'scale_out_bytes_per_s': None,
        'kernels': 'cdna4',
        'price_per_gpu_hour': None,
        'price_note': 'the catalogue gives no price for it',
    },
    'rtx-pro-6000': {
        'name': 'NVIDIA RTX PRO 6000 Blackwell Server Edition',
        'dense_flops': {
            'bf16': 467800000000000.0,
            'fp8': 935600000000000.0,
            'fp4': 1871200000000000.0,
        },
        'hbm_bytes': 102641958912.0,
        'hbm_bytes_per_s': 1792000000000.0,
        'scale_up_link': 'no NVLink',
        'scale_up_bytes_per_s': 64000000000.0,
        'scale_up_gpus': 1,
        'topology': 'switch',
        'host_link': 'PCIe Gen5 x16',
        'host_link_bytes_per_s': 64000000000.0,
        'scale_out_bytes_per_s': None,
        'kernels': 'blackwell-gddr7',
        'price_per_gpu_hour': None,
        'price_note': 'the catalogue gives no price for it',
    },
    'vera-rubin-nvl72': {
        'name': (
            'NVIDIA Vera Rubin NVL72 (one Rubin GPU) (announced)'
        ),
        'dense_flops': {
            'bf16': 4000000000000000.0,
            'fp8': 1.75e+16,
            'fp4': 3.5e+16,
        },
        'hbm_bytes': 288000000000.0,
        'hbm_bytes_per_s': 22000000000000.0,
        'scale_up_link': (
            'NVLink 6 through NVLink switches, one domain across the rack'
        ),
        'scale_up_bytes_per_s': 1800000000000.0,
        'scale_up_gpus': 72,
        'topology': 'switch',
        'host_link': None,
        'host_link_bytes_per_s': None,
        'scale_out_bytes_per_s': None,
        'kernels': 'rubin',
        'price_per_gpu_hour': None,
        'price_note': 'the catalogue gives no price for it',
    },
}
MODELS = {
    'deepseek-v3': {
        'name': 'DeepSeek-V3',
        'config': {
            'hidden_size': 7168,
            'num_hidden_layers': 61,
            'num_attention_heads': 128,
            'vocab_size': 129280,
            'intermediate_size': 18432,
            'num_key_value_heads': 128,
            'tie_word_embeddings': False,
            'max_position_embeddings': 163840,
            'torch_dtype': 'bfloat16',
            'n_routed_experts': 256,
            'num_experts_per_tok': 8,
            'moe_intermediate_size': 2048,
            'n_shared_experts': 1,
            'first_k_dense_replace': 3,
            'moe_layer_freq': 1,
            'q_lora_rank': 1536,
            'kv_lora_rank': 512,
            'qk_nope_head_dim': 128,
            'qk_rope_head_dim': 64,
            'v_head_dim': 128,
            'quantization_config': {
                'quant_method': 'fp8',
                'fmt': 'e4m3',
                'activation_scheme': 'dynamic',
                'weight_block_size': [128, 128],
            },
        },
    },
    'gpt-oss-120b': {
        'name': 'gpt-oss-120b',
        'config': {
            'hidden_size': 2880,
            'num_hidden_layers': 36,
            'num_attention_heads': 64,
            'vocab_size': 201088,
            'intermediate_size': 2880,
            'num_key_value_heads': 8,
            'head_dim': 64,
            'tie_word_embeddings': False,
            'attention_bias': True,
            'max_position_embeddings': 131072,
            'torch_dtype': 'bfloat16',
            'num_local_experts': 128,
            'num_experts_per_tok': 4,
            'sliding_window': 128,
            'layer_types': [
                'sliding_attention',
                'full_attention',
                'sliding_attention',
                'full_attention',
                'sliding_attention',
                'full_attention',
                'sliding_attention',
                'full_attention',
                'sliding_attention',
                'full_attention',
                'sliding_attention',
                'full_attention',
                'sliding_attention',
                'full_attention',
                'sliding_attention',
                'full_attention',
                'sliding_attention',
                'full_attention',
                'sliding_attention',
                'full_attention',
                'sliding_attention',
                'full_attention',
                'sliding_attention',
                'full_attention',
                'sliding_attention',
                'full_attention',
                'sliding_attention',
                'full_attention',
                'sliding_attention',
                'full_attention',
                'sliding_attention',
                'full_attention',
                'sliding_attention',
                'full_attention',
                'sliding_attention',
                'full_attention',
            ],
            'quantization_config': {
                'quant_method': 'mxfp4',
                'modules_to_not_convert': [
                    'model.layers.*.self_attn',
                    'model.layers.*.mlp.router',
                    'model.embed_tokens',
                    'lm_head',
                ],
            },
        },
    },
    'llama-2-70b': {
        'name': 'Llama 2 70B',
        'config': {
            'hidden_size': 8192,
            'num_hidden_layers': 80,
            'num_attention_heads': 64,
            'vocab_size': 32000,
            'intermediate_size': 28672,
            'num_key_value_heads': 8,
            'tie_word_embeddings': False,
            'max_position_embeddings': 4096,
            'torch_dtype': 'float16',
        },
    },
    'llama-2-7b': {
        'name': 'Llama 2 7B',
        'config': {
            'hidden_size': 4096,
            'num_hidden_layers': 32,
            'num_attention_heads': 32,
            'vocab_size': 32000,
            'intermediate_size': 11008,
            'num_key_value_heads': 32,
            'tie_word_embeddings': False,
            'max_position_embeddings': 4096,
            'torch_dtype': 'float16',
        },
    },
    'llama-3.1-405b': {
        'name': 'Llama 3.1 405B',
        'config': {
            'hidden_size': 16384,
            'num_hidden_layers': 126,
            'num_attention_heads': 128,
            'vocab_size': 128256,
            'intermediate_size': 53248,
            'num_key_value_heads': 8,
            'tie_word_embeddings': False,
            'max_position_embeddings': 131072,
            'torch_dtype': 'bfloat16',
        },
    },
    'llama-3.1-70b': {
        'name': 'Llama 3.1 70B',
        'config': {
            'hidden_size': 8192,
            'num_hidden_layers': 80,
            'num_attention_heads': 64,
            'vocab_size': 128256,
            'intermediate_size': 28672,
            'num_key_value_heads': 8,
            'tie_word_embeddings': False,
            'max_position_embeddings': 131072,
            'torch_dtype': 'bfloat16',
        },
    },
    'llama-3.1-8b': {
        'name': 'Llama 3.1 8B',
        'config': {
            'hidden_size': 4096,
            'num_hidden_layers': 32,
            'num_attention_heads': 32,
            'vocab_size': 128256,
            'intermediate_size': 14336,
            'num_key_value_heads': 8,
            'tie_word_embeddings': False,
            'max_position_embeddings': 131072,
            'torch_dtype': 'bfloat16',
        },
    },
    'llama-3.2-1b': {
        'name': 'Llama 3.2 1B',
        'config': {
            'hidden_size': 2048,
            'num_hidden_layers': 16,
            'num_attention_heads': 32,
            'vocab_size': 128256,
            'intermediate_size': 8192,
            'num_key_value_heads': 8,
            'head_dim': 64,
            'tie_word_embeddings': True,
            'max_position_embeddings': 131072,
            'torch_dtype': 'bfloat16',
        },
    },
    'qwen3-235b-a22b': {
        'name': 'Qwen3 235B-A22B',
        'config': {
            'hidden_size': 4096,
            'num_hidden_layers': 94,
            'num_attention_heads': 64,
            'vocab_size': 151936,
            'num_key_value_heads': 4,
            'head_dim': 128,
            'tie_word_embeddings': False,
            'max_position_embeddings': 40960,
            'torch_dtype': 'bfloat16',
            'num_experts': 128,
            'num_experts_per_tok': 8,
            'moe_intermediate_size': 1536,
            'decoder_sparse_step': 1,
            'mlp_only_layers': [],
        },
    },
    'qwen3-30b-a3b': {
        'name': 'Qwen3 30B-A3B',
        'config': {
            'hidden_size': 2048,
            'num_hidden_layers': 48,
            'num_attention_heads': 32,
            'vocab_size': 151936,
            'num_key_value_heads': 4,
            'head_dim': 128,
            'tie_word_embeddings': False,
            'max_position_embeddings': 40960,
            'torch_dtype': 'bfloat16',
            'num_experts': 128,
            'num_experts_per_tok': 8,
            'moe_intermediate_size': 768,
            'decoder_sparse_step': 1,
            'mlp_only_layers': [],
        },
    },
    'qwen3-32b': {
        'name': 'Qwen3 32B',
        'config': {
            'hidden_size': 5120,
            'num_hidden_layers': 64,
            'num_attention_heads': 64,
            'vocab_size': 151936,
            'intermediate_size': 25600,
            'num_key_value_heads': 8,
            'head_dim': 128,
            'tie_word_embeddings': False,
            'max_position_embeddings': 40960,
            'torch_dtype': 'bfloat16',
        },
    },
}
KERNELS = {
    'ada': {
        'name': "Ada Lovelace (L40S), taken from Hopper's",
        'overlap_exponent': 3.0,
        'gemm': {
            'bf16': {
                'compute_efficiency': 0.7965,
                'memory_efficiency': 0.8191,
                'fixed_s': 3.1589999999999997e-06,
                'k_step_s': 2.382e-12,
            },
            'fp8': {
                'compute_efficiency': 0.6562,
                'memory_efficiency': 0.7937,
                'fixed_s': 1.194e-05,
                'k_step_s': 3.571e-24,
            },
        },
        'prefill_attention': {
            'bf16': {
                'compute_efficiency': 0.5874,
                'memory_passes': 2.746,
                'fixed_s': 2.076e-05,
                'per_sequence_head_s': 9.393000000000001e-08,
            },
            'fp8': {
                'compute_efficiency': 0.3682,
                'memory_passes': 4.188,
                'fixed_s': 2.06e-05,
                'per_sequence_head_s': 0.0,
            },
        },
        'decode_attention': {
            'bf16': {
                'memory_efficiency': 0.8459,
                'unit_share': 0.1373,
                'fixed_s': 1.0619999999999998e-05,
                'per_sequence_s': 5.672e-08,
            },
            'fp8': {
                'memory_efficiency': 0.8152,
                'unit_share': 0.05826,
                'fixed_s': 5.408999999999999e-06,
                'per_sequence_s': 1.4770000000000001e-08,
            },
        },
        'moe': {
            'bf16': {
                'memory_efficiency': 1.0,
                'fixed_s': 2.3409999999999998e-05,
                'per_row_s': 2.496e-09,
                'tile_rows': 128,
            },
            'fp8': {
                'memory_efficiency': 0.8271,
                'fixed_s': 2.828e-05,
                'per_row_s': 3.4540000000000003e-09,
                'tile_rows': 0,
            },
            'w4a16': {
                'memory_efficiency': 1.0,
                'fixed_s': 7.451e-05,
                'per_row_s': 7.003e-08,
                'tile_rows': 16,
            },
        },
        'elementwise': {
            'memory_efficiency': 0.8,
            'fixed_s': 4e-06,
        },
        'all_reduce': {
            'nccl': [
                {
                    'traffic': 'ring',
                    'latency_s': {
                        2: 7.32e-06,
                        4: 1.025e-05,
                        8: 1.687e-05,
                    },
                    'bus_efficiency': 0.4508,
                },
                {
                    'traffic': 'in_switch',
                    'latency_s': {
                        2: 7.32e-06,
                        4: 3.237e-05,
                        8: 5.425e-05,
                    },
                    'bus_efficiency': 0.5547,
                },
            ],
            'custom': [
                {
                    'traffic': 'one_shot',
                    'latency_s': {
                        2: 2.879e-06,
                        4: 3.0859999999999998e-06,
                        8: 3.338e-06,
                    },
                    'bus_efficiency': 0.7109,
                },
                {
                    'traffic': 'ring',
                    'latency_s': {
                        2: 2.879e-06,
                        4: 2.147e-05,
                        8: 2.7469999999999996e-05,
                    },
                    'bus_efficiency': 0.7109,
                },
            ],
        },
        'measured_as': 'hopper',
        'accuracy': [],
    },
    'ampere': {
        'name': "Ampere (A100) with vLLM's kernels and NCCL",
        'overlap_exponent': 3.0,
        'gemm': {
            'bf16': {
                'compute_efficiency': 0.7213,
                'memory_efficiency': 0.8528,
                'fixed_s': 3.0099999999999996e-06,
                'k_step_s': 7.896e-10,
            },
        },
        'prefill_attention': {
            'bf16': {
                'compute_efficiency': 0.587,
                'memory_passes': 2.75,
                'fixed_s': 2.08e-05,
                'per_sequence_head_s': 9.400000000000001e-08,
            },
        },
        'decode_attention': {
            'bf16': {
                'memory_efficiency': 0.846,
                'unit_share': 0.137,
                'fixed_s': 1.0599999999999998e-05,
                'per_sequence_s': 5.7e-08,
            },
        },
        'moe': {
            'bf16': {
                'memory_efficiency': 0.8,
                'fixed_s': 2.4999999999999998e-05,
                'per_row_s': 2e-09,
                'tile_rows': 0,
            },
        },
        'elementwise': {
            'memory_efficiency': 0.8,
            'fixed_s': 4e-06,
        },
        'all_reduce': {
            'nccl': [
                {
                    'traffic': 'ring',
                    'latency_s': {
                        2: 4.2789999999999995e-05,
                        8: 4.485e-05,
                    },
                    'bus_efficiency': 0.5865,
                },
            ],
        },
        'measured_as': 'ampere',
        'accuracy': [
            [
                'all_reduce',
                'nccl',
                'training',
                11,
                0.04026,
                0.1362,
            ],
            [
                'gemm',
                'bf16',
                'training',
                20,
                0.04233,
                0.08675,
            ],
        ],
    },
    'blackwell': {
        'name': (
            "Blackwell (B200) with TensorRT-LLM's kernels and NCCL"
        ),
        'overlap_exponent': 3.0,
        'gemm': {
            'bf16': {
                'compute_efficiency': 0.7036,
                'memory_efficiency': 0.7837,
                'fixed_s': 2.769e-06,
                'k_step_s': 2.309e-10,
            },
            'fp8': {
                'compute_efficiency': 0.5927,
                'memory_efficiency': 0.6226,
                'fixed_s': 1.381e-05,
                'k_step_s': 1.505e-10,
            },
            'fp4': {
                'compute_efficiency': 0.433,
                'memory_efficiency': 0.7377,
                'fixed_s': 7.1469999999999995e-06,
                'k_step_s': 9.003000000000001e-10,
            },
        },
        'prefill_attention': {
            'bf16': {
                'compute_efficiency': 0.4916,
                'memory_passes': 2.879,
                'fixed_s': 2.649e-05,
                'per_sequence_head_s': 1.307e-50,
            },
            'fp8': {
                'compute_efficiency': 0.2721,
                'memory_passes': 4.476,
                'fixed_s': 2.5319999999999998e-05,
                'per_sequence_head_s': 0.0,
            },
        },
        'decode_attention': {
            'bf16': {
                'memory_efficiency': 0.7862,
                'unit_share': 0.04756,
                'fixed_s': 6.653999999999999e-06,
                'per_sequence_s': 4.3500000000000005e-24,
            },
            'fp8': {
                'memory_efficiency': 0.7833,
                'unit_share': 0.02556,
                'fixed_s': 6.671e-06,
                'per_sequence_s': 3.908e-09,
            },
        },
        'moe': {
            'bf16': {
                'memory_efficiency': 0.8213,
                'fixed_s': 2.361e-05,
                'per_row_s': 2.155e-09,
                'tile_rows': 0,
            },
            'fp8': {
                'memory_efficiency': 0.9218,
                'fixed_s': 3.5e-05,
                'per_row_s': 5.247000000000001e-09,
                'tile_rows': 128,
            },
            'fp4': {
                'memory_efficiency': 0.3976,
                'fixed_s': 3.6819999999999996e-05,
                'per_row_s': 5.212e-09,
                'tile_rows': 128,
            },
            'w4a8': {
                'memory_efficiency': 0.7114,
                'fixed_s': 1.9319999999999998e-05,
                'per_row_s': 1.59e-09,
                'tile_rows': 0,
            },
        },
        'elementwise': {
            'memory_efficiency': 0.8,
            'fixed_s': 4e-06,
        },
        'all_reduce': {
            'nccl': [
                {
                    'traffic': 'ring',
                    'latency_s': {
                        2: 1.1089999999999999e-05,
                        4: 1.557e-05,
                        8: 2.653e-05,
                    },
                    'bus_efficiency': 0.3617,
                },
                {
                    'traffic': 'in_switch',
                    'latency_s': {
                        2: 1.1089999999999999e-05,
                        4: 6.142e-05,
                        8: 6.292e-05,
                    },
                    'bus_efficiency': 0.499,
                },
            ],
            'custom': [
                {
                    'traffic': 'one_shot',
                    'latency_s': {
                        2: 4.96e-06,
                        4: 5.062e-06,
                        8: 5.444e-06,
                    },
                    'bus_efficiency': 0.6246,
                },
                {
                    'traffic': 'ring',
                    'latency_s': {
                        2: 4.96e-06,
                        4: 2.7649999999999998e-05,
                        8: 3.102e-05,
                    },
                    'bus_efficiency': 0.6246,
                },
            ],
        },
        'measured_as': 'blackwell',
        'accuracy': [
            [
                'gemm',
                'bf16',
                'training',
                20,
                0.03314,
                0.1273,
            ],
            [
                'gemm',
                'bf16',
                'held_out',
                20,
                0.04444,
                0.1202,
            ],
            ['gemm', 'fp8', 'training', 20, 0.05109, 0.1026],
            [
                'gemm',
                'fp8',
                'held_out',
                20,
                0.07576,
                0.09788,
            ],
            ['gemm', 'fp4', 'training', 20, 0.05357, 0.1346],
            ['gemm', 'fp4', 'held_out', 20, 0.09267, 0.1439],
            [
                'prefill_attention',
                'bf16',
                'training',
                9,
                0.05797,
                0.1124,
            ],
            [
                'prefill_attention',
                'bf16',
                'held_out',
                9,
                0.02369,
                0.09358,
            ],
            [
                'prefill_attention',
                'fp8',
                'training',
                9,
                0.05544,
                0.2242,
            ],
            [
                'prefill_attention',
                'fp8',
                'held_out',
                9,
                0.0464,
                0.2021,
            ],
            [
                'decode_attention',
                'bf16',
                'training',
                9,
                0.08032,
                0.1305,
            ],
            [
                'decode_attention',
                'bf16',
                'held_out',
                9,
                0.05324,
                0.08789,
            ],
            [
                'decode_attention',
                'fp8',
                'training',
                9,
                0.04075,
                0.07737,
            ],
            [
                'decode_attention',
                'fp8',
                'held_out',
                9,
                0.08581,
                0.1353,
            ],
            ['moe', 'bf16', 'training', 12, 0.02401, 0.1446],
            ['moe', 'bf16', 'held_out', 8, 0.07489, 0.1499],
            ['moe', 'fp8', 'training', 8, 0.02185, 0.07923],
            ['moe', 'fp8', 'held_out', 4, 0.03714, 0.1194],
            ['moe', 'w4a8', 'training', 8, 0.05646, 0.1662],
            ['moe', 'w4a8', 'held_out', 4, 0.06656, 0.1896],
            ['moe', 'fp4', 'training', 12, 0.08731, 0.2127],
            ['moe', 'fp4', 'held_out', 4, 0.1918, 0.3714],
            [
                'all_reduce',
                'nccl',
                'training',
                15,
                0.05615,
                0.08747,
            ],
            [
                'all_reduce',
                'nccl',
                'held_out',
                12,
                0.03197,
                0.2293,
            ],
            [
                'all_reduce',
                'custom',
                'training',
                15,
                0.04577,
                0.1649,
            ],
            [
                'all_reduce',
                'custom',
                'held_out',
                12,
                0.09185,
                0.1372,
            ],
            [
                'throughput',
                '',
                'training',
                38,
                0.1203,
                0.2485,
            ],
            [
                'throughput',
                '',
                'held_out',
                30,
                0.07931,
                0.3024,
            ],
        ],
    },
    'blackwell-gddr7': {
        'name': (
            "Blackwell with GDDR7 (RTX PRO 6000), taken from Blackwell's (B200)"
        ),
        'overlap_exponent': 3.0,
        'gemm': {
            'bf16': {
                'compute_efficiency': 0.7036,
                'memory_efficiency': 0.7837,
                'fixed_s': 2.769e-06,
                'k_step_s': 2.309e-10,
            },
            'fp8': {
                'compute_efficiency': 0.5927,
                'memory_efficiency': 0.6226,
                'fixed_s': 1.381e-05,
                'k_step_s': 1.505e-10,
            },
            'fp4': {
                'compute_efficiency': 0.433,
                'memory_efficiency': 0.7377,
                'fixed_s': 7.1469999999999995e-06,
                'k_step_s': 9.003000000000001e-10,
            },
        },
        'prefill_attention': {
            'bf16': {
                'compute_efficiency': 0.4916,
                'memory_passes': 2.879,
                'fixed_s': 2.649e-05,
                'per_sequence_head_s': 1.307e-50,
            },
            'fp8': {
                'compute_efficiency': 0.2721,
                'memory_passes': 4.476,
                'fixed_s': 2.5319999999999998e-05,
                'per_sequence_head_s': 0.0,
            },
        },
        'decode_attention': {
            'bf16': {
                'memory_efficiency': 0.7862,
                'unit_share': 0.04756,
                'fixed_s': 6.653999999999999e-06,
                'per_sequence_s': 4.3500000000000005e-24,
            },
            'fp8': {
                'memory_efficiency': 0.7833,
                'unit_share': 0.02556,
                'fixed_s': 6.671e-06,
                'per_sequence_s': 3.908e-09,
            },
        },
        'moe': {
            'bf16': {
                'memory_efficiency': 0.8213,
                'fixed_s': 2.361e-05,
                'per_row_s': 2.155e-09,
                'tile_rows': 0,
            },
            'fp8': {
                'memory_efficiency': 0.9218,
                'fixed_s': 3.5e-05,
                'per_row_s': 5.247000000000001e-09,
                'tile_rows': 128,
            },
            'fp4': {
                'memory_efficiency': 0.3976,
                'fixed_s': 3.6819999999999996e-05,
                'per_row_s': 5.212e-09,
                'tile_rows': 128,
            },
            'w4a8': {
                'memory_efficiency': 0.7114,
                'fixed_s': 1.9319999999999998e-05,
                'per_row_s': 1.59e-09,
                'tile_rows': 0,
            },
        },
        'elementwise': {
            'memory_efficiency': 0.8,
            'fixed_s': 4e-06,
        },
        'all_reduce': {
            'nccl': [
                {
                    'traffic': 'ring',
                    'latency_s': {
                        2: 1.1089999999999999e-05,
                        4: 1.557e-05,
                        8: 2.653e-05,
                    },
                    'bus_efficiency': 0.3617,
                },
                {
                    'traffic': 'in_switch',
                    'latency_s': {
                        2: 1.1089999999999999e-05,
                        4: 6.142e-05,
                        8: 6.292e-05,
                    },
                    'bus_efficiency': 0.499,
                },
            ],
            'custom': [
                {
                    'traffic': 'one_shot',
                    'latency_s': {
                        2: 4.96e-06,
                        4: 5.062e-06,
                        8: 5.444e-06,
                    },
                    'bus_efficiency': 0.6246,
                },
                {
                    'traffic': 'ring',
                    'latency_s': {
                        2: 4.96e-06,
                        4: 2.7649999999999998e-05,
                        8: 3.102e-05,
                    },
                    'bus_efficiency': 0.6246,
                },
            ],
        },
        'measured_as': 'blackwell',
        'accuracy': [],
    },
    'cdna3': {
        'name': "CDNA 3 (MI300X), taken from Hopper's",
        'overlap_exponent': 3.0,
        'gemm': {
            'bf16': {
                'compute_efficiency': 0.7965,
                'memory_efficiency': 0.8191,
                'fixed_s': 3.1589999999999997e-06,
                'k_step_s': 2.382e-12,
            },
            'fp8': {
                'compute_efficiency': 0.6562,
                'memory_efficiency': 0.7937,
                'fixed_s': 1.194e-05,
                'k_step_s': 3.571e-24,
            },
        },
        'prefill_attention': {
            'bf16': {
                'compute_efficiency': 0.5874,
                'memory_passes': 2.746,
                'fixed_s': 2.076e-05,
                'per_sequence_head_s': 9.393000000000001e-08,
            },
            'fp8': {
                'compute_efficiency': 0.3682,
                'memory_passes': 4.188,
                'fixed_s': 2.06e-05,
                'per_sequence_head_s': 0.0,
            },
        },
        'decode_attention': {
            'bf16': {
                'memory_efficiency': 0.8459,
                'unit_share': 0.1373,
                'fixed_s': 1.0619999999999998e-05,
                'per_sequence_s': 5.672e-08,
            },
            'fp8': {
                'memory_efficiency': 0.8152,
                'unit_share': 0.05826,
                'fixed_s': 5.408999999999999e-06,
                'per_sequence_s': 1.4770000000000001e-08,
            },
        },
        'moe': {
            'bf16': {
                'memory_efficiency': 1.0,
                'fixed_s': 2.3409999999999998e-05,
                'per_row_s': 2.496e-09,
                'tile_rows': 128,
            },
            'fp8': {
                'memory_efficiency': 0.8271,
                'fixed_s': 2.828e-05,
                'per_row_s': 3.4540000000000003e-09,
                'tile_rows': 0,
            },
            'w4a16': {
                'memory_efficiency': 1.0,
                'fixed_s': 7.451e-05,
                'per_row_s': 7.003e-08,
                'tile_rows': 16,
            },
        },
        'elementwise': {
            'memory_efficiency': 0.8,
            'fixed_s': 4e-06,
        },
        'all_reduce': {
            'nccl': [
                {
                    'traffic': 'ring',
                    'latency_s': {
                        2: 7.32e-06,
                        4: 1.025e-05,
                        8: 1.687e-05,
                    },
                    'bus_efficiency': 0.4508,
                },
                {
                    'traffic': 'in_switch',
                    'latency_s': {
                        2: 7.32e-06,
                        4: 3.237e-05,
                        8: 5.425e-05,
                    },
                    'bus_efficiency': 0.5547,
                },
            ],
            'custom': [
                {
                    'traffic': 'one_shot',
                    'latency_s': {
                        2: 2.879e-06,
                        4: 3.0859999999999998e-06,
                        8: 3.338e-06,
                    },
                    'bus_efficiency': 0.7109,
                },
                {
                    'traffic': 'ring',
                    'latency_s': {
                        2: 2.879e-06,
                        4: 2.147e-05,
                        8: 2.7469999999999996e-05,
                    },
                    'bus_efficiency': 0.7109,
                },
            ],
        },
        'measured_as': 'hopper',
        'accuracy': [
            [
                'all_reduce',
                'nccl',
                'held_out',
                20,
                0.5607,
                0.6834,
            ],
        ],
    },
    'cdna4': {
        'name': "CDNA 4 (MI355X), taken from Blackwell's",
        'overlap_exponent': 3.0,
        'gemm': {
            'bf16': {
                'compute_efficiency': 0.7036,
                'memory_efficiency': 0.7837,
                'fixed_s': 2.769e-06,
                'k_step_s': 2.309e-10,
            },
            'fp8': {
                'compute_efficiency': 0.5927,
                'memory_efficiency': 0.6226,
                'fixed_s': 1.381e-05,
                'k_step_s': 1.505e-10,
            },
            'fp4': {
                'compute_efficiency': 0.433,
                'memory_efficiency': 0.7377,
                'fixed_s': 7.1469999999999995e-06,
                'k_step_s': 9.003000000000001e-10,
            },
        },
        'prefill_attention': {
            'bf16': {
                'compute_efficiency': 0.4916,
                'memory_passes': 2.879,
                'fixed_s': 2.649e-05,
                'per_sequence_head_s': 1.307e-50,
            },
            'fp8': {
                'compute_efficiency': 0.2721,
                'memory_passes': 4.476,
                'fixed_s': 2.5319999999999998e-05,
                'per_sequence_head_s': 0.0,
            },
        },
        'decode_attention': {
            'bf16': {
                'memory_efficiency': 0.7862,
                'unit_share': 0.04756,
                'fixed_s': 6.653999999999999e-06,
                'per_sequence_s': 4.3500000000000005e-24,
            },
            'fp8': {
                'memory_efficiency': 0.7833,
                'unit_share': 0.02556,
                'fixed_s': 6.671e-06,
                'per_sequence_s': 3.908e-09,
            },
        },
        'moe': {
            'bf16': {
                'memory_efficiency': 0.8213,
                'fixed_s': 2.361e-05,
                'per_row_s': 2.155e-09,
                'tile_rows': 0,
            },
            'fp8': {
                'memory_efficiency': 0.9218,
                'fixed_s': 3.5e-05,
                'per_row_s': 5.247000000000001e-09,
                'tile_rows': 128,
            },
            'fp4': {
                'memory_efficiency': 0.3976,
                'fixed_s': 3.6819999999999996e-05,
                'per_row_s': 5.212e-09,
                'tile_rows': 128,
            },
            'w4a8': {
                'memory_efficiency': 0.7114,
                'fixed_s': 1.9319999999999998e-05,
                'per_row_s': 1.59e-09,
                'tile_rows': 0,
            },
        },
        'elementwise': {
            'memory_efficiency': 0.8,
            'fixed_s': 4e-06,
        },
        'all_reduce': {
            'nccl': [
                {
                    'traffic': 'ring',
                    'latency_s': {
                        2: 1.1089999999999999e-05,
                        4: 1.557e-05,
                        8: 2.653e-05,
                    },
                    'bus_efficiency': 0.3617,
                },
                {
                    'traffic': 'in_switch',
                    'latency_s': {
                        2: 1.1089999999999999e-05,
                        4: 6.142e-05,
                        8: 6.292e-05,
                    },
                    'bus_efficiency': 0.499,
                },
            ],
            'custom': [
                {
                    'traffic': 'one_shot',
                    'latency_s': {
                        2: 4.96e-06,
                        4: 5.062e-06,
                        8: 5.444e-06,
                    },
                    'bus_efficiency': 0.6246,
                },
                {
                    'traffic': 'ring',
                    'latency_s': {
                        2: 4.96e-06,
                        4: 2.7649999999999998e-05,
                        8: 3.102e-05,
                    },
                    'bus_efficiency': 0.6246,
                },
            ],
        },
        'measured_as': 'blackwell',
        'accuracy': [],
    },
    'hopper': {
        'name': (
            "Hopper (H100, H200) with TensorRT-LLM's kernels and NCCL"
        ),
        'overlap_exponent': 3.0,
        'gemm': {
            'bf16': {
                'compute_efficiency': 0.7965,
                'memory_efficiency': 0.8191,
                'fixed_s': 3.1589999999999997e-06,
                'k_step_s': 2.382e-12,
            },
            'fp8': {
                'compute_efficiency': 0.6562,
                'memory_efficiency': 0.7937,
                'fixed_s': 1.194e-05,
                'k_step_s': 3.571e-24,
            },
        },
        'prefill_attention': {
            'bf16': {
                'compute_efficiency': 0.5874,
                'memory_passes': 2.746,
                'fixed_s': 2.076e-05,
                'per_sequence_head_s': 9.393000000000001e-08,
            },
            'fp8': {
                'compute_efficiency': 0.3682,
                'memory_passes': 4.188,
                'fixed_s': 2.06e-05,
                'per_sequence_head_s': 0.0,
            },
        },
        'decode_attention': {
            'bf16': {
                'memory_efficiency': 0.8459,
                'unit_share': 0.1373,
                'fixed_s': 1.0619999999999998e-05,
                'per_sequence_s': 5.672e-08,
            },
            'fp8': {
                'memory_efficiency': 0.8152,
                'unit_share': 0.05826,
                'fixed_s': 5.408999999999999e-06,
                'per_sequence_s': 1.4770000000000001e-08,
            },
        },
        'moe': {
            'bf16': {
                'memory_efficiency': 1.0,
                'fixed_s': 2.3409999999999998e-05,
                'per_row_s': 2.496e-09,
                'tile_rows': 128,
            },
            'fp8': {
                'memory_efficiency': 0.8271,
                'fixed_s': 2.828e-05,
                'per_row_s': 3.4540000000000003e-09,
                'tile_rows': 0,
            },
            'w4a16': {
                'memory_efficiency': 1.0,
                'fixed_s': 7.451e-05,
                'per_row_s': 7.003e-08,
                'tile_rows': 16,
            },
        },
        'elementwise': {
            'memory_efficiency': 0.8,
            'fixed_s': 4e-06,
        },
        'all_reduce': {
            'nccl': [
                {
                    'traffic': 'ring',
                    'latency_s': {
                        2: 7.32e-06,
                        4: 1.025e-05,
                        8: 1.687e-05,
                    },
                    'bus_efficiency': 0.4508,
                },
                {
                    'traffic': 'in_switch',
                    'latency_s': {
                        2: 7.32e-06,
                        4: 3.237e-05,
                        8: 5.425e-05,
                    },
                    'bus_efficiency': 0.5547,
                },
            ],
            'custom': [
                {
                    'traffic': 'one_shot',
                    'latency_s': {
                        2: 2.879e-06,
                        4: 3.0859999999999998e-06,
                        8: 3.338e-06,
                    },
                    'bus_efficiency': 0.7109,
                },
                {
                    'traffic': 'ring',
                    'latency_s': {
                        2: 2.879e-06,
                        4: 2.147e-05,
                        8: 2.7469999999999996e-05,
                    },
                    'bus_efficiency': 0.7109,
                },
            ],
        },
        'measured_as': 'hopper',
        'accuracy': [
            [
                'gemm',
                'bf16',
                'training',
                20,
                0.02101,
                0.05536,
            ],
            [
                'gemm',
                'bf16',
                'held_out',
                132,
                0.05416,
                0.1521,
            ],
            [
                'gemm',
                'fp8',
                'training',
                20,
                0.03013,
                0.05426,
            ],
            [
                'gemm',
                'fp8',
                'held_out',
                60,
                0.03676,
                0.07428,
            ],
            [
                'prefill_attention',
                'bf16',
                'training',
                15,
                0.05823,
                0.137,
            ],
            [
                'prefill_attention',
                'bf16',
                'held_out',
                39,
                0.05046,
                0.1071,
            ],
            [
                'prefill_attention',
                'fp8',
                'training',
                9,
                0.05071,
                0.1092,
            ],
            [
                'prefill_attention',
                'fp8',
                'held_out',
                27,
                0.06269,
                0.1278,
            ],
            [
                'decode_attention',
                'bf16',
                'training',
                9,
                0.06815,
                0.1299,
            ],
            [
                'decode_attention',
                'bf16',
                'held_out',
                27,
                0.09259,
                0.1882,
            ],
            [
                'decode_attention',
                'fp8',
                'training',
                9,
                0.06214,
                0.1091,
            ],
            [
                'decode_attention',
                'fp8',
                'held_out',
                27,
                0.08901,
                0.1763,
            ],
            [
                'moe',
                'bf16',
                'training',
                12,
                0.02705,
                0.05546,
            ],
            ['moe', 'bf16', 'held_out', 24, 0.0498, 0.1344],
            ['moe', 'fp8', 'training', 8, 0.03975, 0.1595],
            ['moe', 'fp8', 'held_out', 16, 0.04262, 0.08068],
            ['moe', 'w4a16', 'training', 8, 0.1303, 0.3248],
            ['moe', 'w4a16', 'held_out', 12, 0.1475, 0.2675],
            [
                'all_reduce',
                'nccl',
                'training',
                15,
                0.05193,
                0.1853,
            ],
            [
                'all_reduce',
                'nccl',
                'held_out',
                39,
                0.04998,
                0.1727,
            ],
            [
                'all_reduce',
                'custom',
                'training',
                15,
                0.01243,
                0.2069,
            ],
            [
                'all_reduce',
                'custom',
                'held_out',
                39,
                0.0364,
                0.1738,
            ],
            [
                'all_reduce',
                'nvls',
                'held_out',
                41,
                0.09795,
                0.7681,
            ],
            [
                'throughput',
                '',
                'training',
                50,
                0.08117,
                0.375,
            ],
            [
                'throughput',
                '',
                'held_out',
                46,
                0.09384,
                0.3459,
            ],
        ],
    },
    'rubin': {
        'name': "Rubin (announced), taken from Blackwell's",
        'overlap_exponent': 3.0,
        'gemm': {
            'bf16': {
                'compute_efficiency': 0.7036,
                'memory_efficiency': 0.7837,
                'fixed_s': 2.769e-06,
                'k_step_s': 2.309e-10,
            },
            'fp8': {
                'compute_efficiency': 0.5927,
                'memory_efficiency': 0.6226,
                'fixed_s': 1.381e-05,
                'k_step_s': 1.505e-10,
            },
            'fp4': {
                'compute_efficiency': 0.433,
                'memory_efficiency': 0.7377,
                'fixed_s': 7.1469999999999995e-06,
                'k_step_s': 9.003000000000001e-10,
            },
        },
        'prefill_attention': {
            'bf16': {
                'compute_efficiency': 0.4916,
                'memory_passes': 2.879,
                'fixed_s': 2.649e-05,
                'per_sequence_head_s': 1.307e-50,
            },
            'fp8': {
                'compute_efficiency': 0.2721,
                'memory_passes': 4.476,
                'fixed_s': 2.5319999999999998e-05,
                'per_sequence_head_s': 0.0,
            },
        },
        'decode_attention': {
            'bf16': {
                'memory_efficiency': 0.7862,
                'unit_share': 0.04756,
                'fixed_s': 6.653999999999999e-06,
                'per_sequence_s': 4.3500000000000005e-24,
            },
            'fp8': {
                'memory_efficiency': 0.7833,
                'unit_share': 0.02556,
                'fixed_s': 6.671e-06,
                'per_sequence_s': 3.908e-09,
            },
        },
        'moe': {
            'bf16': {
                'memory_efficiency': 0.8213,
                'fixed_s': 2.361e-05,
                'per_row_s': 2.155e-09,
                'tile_rows': 0,
            },
            'fp8': {
                'memory_efficiency': 0.9218,
                'fixed_s': 3.5e-05,
                'per_row_s': 5.247000000000001e-09,
                'tile_rows': 128,
            },
            'fp4': {
                'memory_efficiency': 0.3976,
                'fixed_s': 3.6819999999999996e-05,
                'per_row_s': 5.212e-09,
                'tile_rows': 128,
            },
            'w4a8': {
                'memory_efficiency': 0.7114,
                'fixed_s': 1.9319999999999998e-05,
                'per_row_s': 1.59e-09,
                'tile_rows': 0,
            },
        },
        'elementwise': {
            'memory_efficiency': 0.8,
            'fixed_s': 4e-06,
        },
        'all_reduce': {
            'nccl': [
                {
                    'traffic': 'ring',
                    'latency_s': {
                        2: 1.1089999999999999e-05,
                        4: 1.557e-05,
                        8: 2.653e-05,
                    },
                    'bus_efficiency': 0.3617,
                },
                {
                    'traffic': 'in_switch',
                    'latency_s': {
                        2: 1.1089999999999999e-05,
                        4: 6.142e-05,
                        8: 6.292e-05,
                    },
                    'bus_efficiency': 0.499,
                },
            ],
            'custom': [
                {
                    'traffic': 'one_shot',
                    'latency_s': {
                        2: 4.96e-06,
                        4: 5.062e-06,
                        8: 5.444e-06,
                    },
                    'bus_efficiency': 0.6246,
                },
                {
                    'traffic': 'ring',
                    'latency_s': {
                        2: 4.96e-06,
                        4: 2.7649999999999998e-05,
                        8: 3.102e-05,
                    },
                    'bus_efficiency': 0.6246,
                },
            ],
        },
        'measured_as': 'blackwell',
        'accuracy': [],
    },
}
ENGINES = {
    'sglang': {
        'name': 'SGLang',
        'admission': 'preempt',
        'token_budget': 8192,
        'max_batch': 4096,
        'graph_max_batch': 256,
        'all_reduce': 'custom',
        'graph_overhead_s': 9.999999999999999e-05,
        'eager_overhead_s': 0.001,
        'request_overhead_s': 0.01,
        'accuracy': {
            'ttft': {
                'held_out': [9, 0.9264, 0.9392],
            },
            'tpot': {
                'held_out': [9, 0.6057, 0.6199],
            },
            'itl': {
                'held_out': [9, 0.6058, 0.6199],
            },
            'throughput': {
                'held_out': [9, 0.6259, 0.6624],
            },
        },
    },
    'trtllm': {
        'name': 'TensorRT-LLM',
        'admission': 'reserve',
        'token_budget': 8192,
        'max_batch': 2048,
        'graph_max_batch': 128,
        'all_reduce': 'custom',
        'graph_overhead_s': 1.622e-12,
        'eager_overhead_s': 0.001006,
        'request_overhead_s': 0.003258,
        'accuracy': {
            'ttft': {
                'training': [40, 0.4033, 3.9275],
                'held_out': [39, 0.3656, 4.2494],
            },
            'itl': {
                'training': [40, 0.0867, 0.1797],
                'held_out': [39, 0.0912, 0.187],
            },
            'throughput': {
                'training': [40, 0.0705, 0.1328],
                'held_out': [39, 0.0493, 0.1172],
            },
        },
    },
    'vllm': {
        'name': 'vLLM',
        'admission': 'preempt',
        'token_budget': 8192,
        'max_batch': 1024,
        'graph_max_batch': 512,
        'all_reduce': 'custom',
        'graph_overhead_s': 9.999999999999999e-05,
        'eager_overhead_s': 0.001,
        'request_overhead_s': 0.01,
        'accuracy': {
            'ttft': {
                'training': [6, 0.9452, 0.9753],
                'held_out': [12, 0.9089, 0.9298],
            },
            'tpot': {
                'training': [6, 0.4089, 0.5616],
                'held_out': [12, 0.5313, 0.6775],
            },
            'itl': {
                'training': [6, 0.4109, 0.5984],
                'held_out': [12, 0.5353, 0.6792],
            },
            'throughput': {
                'training': [6, 0.6134, 0.7295],
                'held_out': [12, 0.5902, 0.6873],
            },
        },
    },
}
