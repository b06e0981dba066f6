"""Malbec as [DeSensi20] measured its quiet latencies (Figs. 2, 4 and 5): idle, with the ConnectX-5
RoCE NICs of its nodes driven through libfabric's verbs;ofi_rxm provider."""
from __future__ import annotations

from ..config import Config, load_config

SYSTEM = "slingshot-malbec"
RXM_SAR_LIMIT = 131_072
"""Largest message the RoCE host sends without a rendezvous handshake: verbs;ofi_rxm sends up to 16 KiB
eagerly and up to 128 KiB by segmentation and reassembly, both copied through bounce buffers (its
documented FI_OFI_RXM_BUFFER_SIZE and FI_OFI_RXM_SAR_LIMIT defaults); rendezvous only above."""


def idle_malbec() -> Config:
    """Malbec with no traffic sources, RoCE frames on the host links and the RxM protocol limits."""
    cfg = load_config(SYSTEM)
    cfg["traffic"] = []
    cfg["nic"]["frame"] = "roce"
    cfg.setdefault("mpi", {})["eager_threshold_bytes"] = RXM_SAR_LIMIT
    return cfg
