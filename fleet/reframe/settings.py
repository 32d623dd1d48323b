"""A ReFrame site configuration for ladderbench on a two-partition cluster (a CPU partition and a
GPU partition) reached through Slurm's squeue scheduler (no accounting database needed), the same
through the "slurm" scheduler where the cluster has accounting (slurmdbd), and this machine alone
("local"). Change the partitions' names and access options to your cluster's."""


def cluster_partitions(scheduler):
    """The cluster's CPU and GPU partitions, submitted through `scheduler`."""
    return [{"name": name, "scheduler": scheduler, "launcher": "local", "access": [f"-p {name}"],
             "environs": ["ladder"], "max_jobs": 4} for name in ("cpu", "gpu")]


site_configuration = {
    "systems": [
        {"name": "ladder-cluster", "descr": "a cluster with a CPU and a GPU partition", "hostnames": [".*"],
         "partitions": cluster_partitions("squeue")},
        # The same partitions through Slurm's "slurm" scheduler, which polls job states with sacct
        # (slurmdbd and its database needed).
        {"name": "ladder-cluster-accounting", "descr": "the cluster above, with accounting", "hostnames": [".*"],
         "partitions": cluster_partitions("slurm")},
        {
            "name": "local",
            "descr": "this machine, no scheduler",
            "hostnames": [".*"],
            "partitions": [{"name": "default", "scheduler": "local", "launcher": "local", "environs": ["ladder"]}],
        },
    ],
    "environments": [{"name": "ladder", "cc": "cc", "cxx": "c++"}],
    # The run's output to the terminal only; performance logs and results are where --prefix puts them.
    "logging": [{"handlers": [{"type": "stream", "name": "stdout", "level": "info", "format": "%(message)s"}],
                 "handlers_perflog": []}],
}
