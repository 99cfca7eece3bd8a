"""GPU memory as the devices report it, in GiB (2**30 bytes).

The figures are what ``nvidia-smi`` (``rocm-smi``, ``npu-smi``) shows as total memory,
which is less than the marketing figure in GB: an H100 "80 GB" reports 81,559 MiB.
"""

from __future__ import annotations

#: device -> total memory in GiB, as reported by the vendor's tool
DEVICES: dict[str, float] = {
    "H100": 81559 / 1024,  # nvidia-smi, H100 80GB HBM3
    "H800": 81559 / 1024,  # nvidia-smi, H800 80GB HBM3
    "H20": 97871 / 1024,  # nvidia-smi, H20 96GB HBM3
    "H200": 143771 / 1024,  # nvidia-smi, H200 141GB HBM3e
    "B200": 183359 / 1024,  # nvidia-smi, B200 192GB HBM3e
    "A100-80G": 81920 / 1024,  # nvidia-smi, A100-SXM4-80GB
    "A100-40G": 40960 / 1024,  # nvidia-smi, A100-SXM4-40GB
    "L40S": 46068 / 1024,  # nvidia-smi, L40S 48GB GDDR6
    "RTX4090": 24564 / 1024,  # nvidia-smi, GeForce RTX 4090 24GB
    "MI300X": 196592 / 1024,  # rocm-smi, MI300X 192GB HBM3
    "Ascend910B": 65536 / 1024,  # npu-smi, Ascend 910B 64GB HBM2e
}
ALIASES = {"A100": "A100-80G", "A800": "A100-80G", "4090": "RTX4090", "910B": "Ascend910B", "ASCEND-910B": "Ascend910B"}


def device_memory(name: str) -> float | None:
    """The GiB a device reports, by name (case-insensitive; ``A100`` is the 80 GB one), or None."""
    key = name.strip().upper().replace(" ", "").replace("_", "-")
    for device, gib in DEVICES.items():
        if device.upper() == key:
            return gib
    alias = ALIASES.get(key)
    return DEVICES[alias] if alias else None


def canonical(name: str) -> str | None:
    """The table's spelling of a device name, or None when it is not in the table."""
    key = name.strip().upper().replace(" ", "").replace("_", "-")
    for device in DEVICES:
        if device.upper() == key:
            return device
    return ALIASES.get(key)
