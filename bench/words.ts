/** Vocabulary for generated prose: homelab / operations flavoured English. */
export const NOUNS = (
  "gateway router switch firewall resolver cache proxy certificate backup snapshot volume disk " +
  "cluster node container image registry pipeline deployment release rollback service endpoint " +
  "database replica index query schema migration table shard queue worker scheduler cron job " +
  "alert metric dashboard log trace incident runbook playbook owner team policy secret token " +
  "key vault mirror bucket archive network subnet vlan bridge tunnel peer route lease " +
  "printer camera sensor thermostat battery inverter panel rack server laptop budget invoice " +
  "contract vendor meeting decision roadmap milestone review outage latency throughput capacity " +
  "storage memory kernel driver firmware update patch upgrade monitor probe health check quota"
).split(" ");

export const VERBS = (
  "configures replaces monitors forwards resolves stores rotates renews restores migrates " +
  "schedules drains promotes exposes throttles caches mirrors encrypts validates documents " +
  "tracks reports deploys provisions retires audits backs compresses indexes serves routes"
).split(" ");

export const ADJECTIVES = (
  "primary secondary legacy redundant encrypted nightly weekly critical internal external " +
  "shared dedicated temporary stable experimental manual automatic slow fast noisy quiet " +
  "expensive cheap upstream downstream regional local remote public private default"
).split(" ");

export const CONNECTIVES = [
  "Meanwhile,",
  "In practice,",
  "As a rule,",
  "Since the last review,",
  "Unless noted otherwise,",
  "For now,",
  "Historically,",
  "In the event of an outage,",
];

export const PLACES = [
  "Milan",
  "Turin",
  "Oslo",
  "Lisbon",
  "Kyoto",
  "Denver",
  "Austin",
  "Ghent",
  "Porto",
  "Quebec",
];

// Never "services": ids under services/ name the KB-root services/ concepts (design.md §4).
export const MAP_NAMES = [
  "infra",
  "platform",
  "people",
  "projects",
  "finance",
  "home",
  "research",
  "ops",
  "media",
  "travel",
];

export const TYPE_PALETTE = [
  "note",
  "service",
  "runbook",
  "decision",
  "device",
  "person",
  "project",
  "howto",
];
