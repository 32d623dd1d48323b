"""Writes the GPU hosts' topologies: hwloc's synthetic description of the CPUs (lstopo turns it
into XML), with each GPU added as a PCI device below the package or NUMA group it hangs from.
Synthetic descriptions have no PCI devices; the XML then holds what a recorded host's would.
Run again after changing a host: python3 tests/machines/make_gpu_hosts.py"""

import pathlib
import subprocess
import xml.etree.ElementTree as ET

HERE = pathlib.Path(__file__).parent

# name: (synthetic CPUs, the object type the GPUs hang from, [(bus id, "vendor:device")])
HOSTS = {
    # One H200 SXM on a 16-core Emerald Rapids VM (the device tool's machine): one package.
    "h200-host": (
        "pack:1 [numa(memory=137438953472)] l3:1(size=314572800) l2:16(size=2097152) l1d:1(size=49152) core:1 pu:1",
        "Package",
        [("0000:17:00.0", "10de:2335")],
    ),
    # A T4 on each socket of a 2 x Xeon Gold 6230 (Cascade Lake, 20 cores, 27.5 MiB L3).
    "t4-host": (
        "pack:2 [numa(memory=206158430208)] l3:1(size=28835840) l2:20(size=1048576) l1d:1(size=32768) core:1 pu:2",
        "Package",
        [("0000:3b:00.0", "10de:1eb8"), ("0000:d8:00.0", "10de:1eb8")],
    ),
    # A DGX A100: 2 x EPYC 7742 in NPS4 (4 NUMA nodes a socket, 16 MiB of L3 per 4 cores) and an
    # A100 on each NUMA node.
    "a100-host": (
        "pack:2 group:4 [numa(memory=68719476736)] l3:4(size=16777216) l2:4(size=524288) l1d:1(size=32768) core:1 pu:2",
        "Group",
        [(f"0000:{bus:02x}:00.0", "10de:20b0") for bus in (0x07, 0x0F, 0x47, 0x4E, 0x87, 0x90, 0xB7, 0xBD)],
    ),
}


def main():
    for name, (synthetic, parent_type, gpus) in HOSTS.items():
        xml = subprocess.run(
            ["lstopo-no-graphics", "--input", synthetic, "--of", "xml", "-"], check=True, capture_output=True, text=True
        ).stdout
        root = ET.fromstring(xml)
        parents = [o for o in root.iter("object") if o.get("type") == parent_type]
        assert len(parents) == len(gpus), (name, len(parents), len(gpus))
        index = 10_000
        for parent, (bus_id, ids) in zip(parents, gpus):
            bus = bus_id.split(":")[1]
            bridge = ET.SubElement(
                parent,
                "object",
                {
                    "type": "Bridge",
                    "gp_index": str(index),
                    "bridge_type": "0-1",
                    "depth": "0",
                    "bridge_pci": f"0000:[{bus}-{bus}]",
                },
            )
            ET.SubElement(
                bridge,
                "object",
                {
                    "type": "PCIDev",
                    "gp_index": str(index + 1),
                    "pci_busid": bus_id,
                    "pci_type": f"0302 [{ids}] [{ids}] a1",
                    "pci_link_speed": "0.000000",
                },
            )
            index += 2
        for info in root.iter("info"):
            if info.get("name") == "ProcessName":
                info.set("value", "make_gpu_hosts.py")
        text = '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE topology SYSTEM "hwloc2.dtd">\n'
        ET.indent(root)
        (HERE / f"{name}.xml").write_text(text + ET.tostring(root, encoding="unicode") + "\n")


if __name__ == "__main__":
    main()
