#!/bin/bash
# Start a single-machine Slurm cluster with fake GPUs: NODES (default 4) nodes n1..nNODES, each
# with 4 fake GPUs as typed GRES g0..g3 (so a job can be pinned to exact indices). Installs
# Debian's packages if needed; starts munged, slurmctld and one slurmd per node; waits until
# every node is idle. Stop everything with slurm-down.sh. See ../shared/SLURM-LOCAL.md.
set -euo pipefail
NODES=${NODES:-4}
export DEBIAN_FRONTEND=noninteractive
if ! command -v slurmctld >/dev/null; then
  apt-get update >/dev/null
  apt-get install -y --no-install-recommends slurmctld slurmd slurm-client munge >/dev/null
fi
install -d -o munge -g munge -m 0755 /run/munge
[ -f /etc/munge/munge.key ] || { dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null; chown munge:munge /etc/munge/munge.key; chmod 0400 /etc/munge/munge.key; }
runuser -u munge -- /usr/sbin/munged
install -d /run/fakegpu
for i in 0 1 2 3; do [ -e /run/fakegpu/gpu$i ] || mknod /run/fakegpu/gpu$i c 195 $i; done
install -d /etc/slurm /var/spool/slurmctld /var/log/slurm
cat > /etc/slurm/slurm.conf <<CONF
ClusterName=bloxci
SlurmctldHost=localhost
SlurmctldPort=6817
AuthType=auth/munge
CredType=cred/munge
AuthInfo=cred_expire=10
SlurmUser=root
SlurmdUser=root
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd/%n
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd-%n.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1,sched_interval=1,batch_sched_delay=0,sched_min_interval=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
ReturnToService=2
SlurmdParameters=config_overrides
JobRequeue=0
NodeName=n[1-$NODES] NodeHostname=localhost NodeAddr=127.0.0.1 Port=[17001-$((17000 + NODES))] CPUs=8 RealMemory=4000 Gres=gpu:g0:1,gpu:g1:1,gpu:g2:1,gpu:g3:1 State=UNKNOWN
PartitionName=gpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
cat > /etc/slurm/gres.conf <<CONF
AutoDetect=off
NodeName=n[1-$NODES] Name=gpu Type=g0 File=/run/fakegpu/gpu0
NodeName=n[1-$NODES] Name=gpu Type=g1 File=/run/fakegpu/gpu1
NodeName=n[1-$NODES] Name=gpu Type=g2 File=/run/fakegpu/gpu2
NodeName=n[1-$NODES] Name=gpu Type=g3 File=/run/fakegpu/gpu3
CONF
slurmctld -c
for n in $(seq 1 "$NODES"); do install -d /var/spool/slurmd/n$n; slurmd -N n$n; done
for _ in $(seq 1 300); do
  [ "$(sinfo -h -N -t idle -o %N 2>/dev/null | wc -l)" = "$NODES" ] && { echo "slurm-up: $NODES nodes idle"; exit 0; }
  sleep 0.1
done
echo "slurm-up: nodes did not become idle" >&2
sinfo -N >&2 || true
exit 1
