"""GPU memory as the devices report it, in GiB (2**30 bytes), and a node's host memory where one is standard.

The figures are what ``nvidia-smi`` (``rocm-smi``, ``npu-smi``) shows as total memory,
which is less than the marketing figure in GB: an H100 "80 GB" reports 81,559 MiB.  Any
other device is estimated with ``--device-memory``.
"""

from __future__ import annotations

#: device -> total memory in GiB, as reported by the vendor's tool
DEVICES: dict[str, float] = {
    "H100": 81559 / 1024,  # nvidia-smi, H100 80GB HBM3
    "H800": 81559 / 1024,  # nvidia-smi, H800 80GB HBM3
    "H20": 97871 / 1024,  # nvidia-smi, H20 96GB HBM3
    "H20-141G": 143771 / 1024,  # nvidia-smi, H20-3e 141GB HBM3e
    "H200": 143771 / 1024,  # nvidia-smi, H200 141GB HBM3e
    "B200": 183359 / 1024,  # nvidia-smi, B200 192GB HBM3e
    "A100-80G": 81920 / 1024,  # nvidia-smi, A100-SXM4-80GB
    "A800": 81920 / 1024,  # nvidia-smi, A800-SXM4-80GB
    "A100-40G": 40960 / 1024,  # nvidia-smi, A100-SXM4-40GB
    "L40S": 46068 / 1024,  # nvidia-smi, L40S 48GB GDDR6
    "L20": 46068 / 1024,  # nvidia-smi, L20 48GB GDDR6
    "RTX-A6000": 49140 / 1024,  # nvidia-smi, RTX A6000 48GB GDDR6
    "A10": 23028 / 1024,  # nvidia-smi, A10 24GB GDDR6
    "V100": 32768 / 1024,  # nvidia-smi, V100-SXM2-32GB
    "RTX4090": 24564 / 1024,  # nvidia-smi, GeForce RTX 4090 24GB
    "MI300X": 196592 / 1024,  # rocm-smi, MI300X 192GB HBM3
    "Ascend910B": 65536 / 1024,  # npu-smi, Ascend 910B 64GB HBM2e
}
ALIASES = {
    "A100": "A100-80G",
    "A800-80G": "A800",
    "4090": "RTX4090",
    "A6000": "RTX-A6000",
    "RTXA6000": "RTX-A6000",
    "A10G": "A10",
    "V100-32G": "V100",
    "H20-3E": "H20-141G",
    "910B": "Ascend910B",
    "ASCEND-910B": "Ascend910B",
}

#: device -> host memory per node in GiB, where the vendor's reference node is the usual one:
#: NVIDIA's DGX H100, DGX H200 and DGX A100 (640 GB) data sheets give 2 TB of system memory
#: (32 DIMMs of 64 GiB).  Other devices ship in nodes of every size: give ``--host-memory``.
NODE_MEMORY: dict[str, float] = {
    "H100": 2048.0,
    "H200": 2048.0,
    "A100-80G": 2048.0,
}


def _key(name: str) -> str:
    return name.strip().upper().replace(" ", "").replace("_", "-")


def canonical(name: str) -> str | None:
    """The table's spelling of a device name, or None when it is not in the table."""
    key = _key(name)
    for device in DEVICES:
        if device.upper() == key:
            return device
    return ALIASES.get(key) or ALIASES.get(key.replace("-", ""))


def device_memory(name: str) -> float | None:
    """The GiB a device reports, by name (case-insensitive; ``A100`` is the 80 GB one), or None."""
    device = canonical(name)
    return DEVICES[device] if device else None


def node_memory(name: str) -> float | None:
    """A node's host memory in GiB where the device's reference node is standard, or None."""
    device = canonical(name)
    return NODE_MEMORY.get(device) if device else None
