#!/bin/sh
# The container's one entrypoint: every process of sigtracker runs the same image with a sub-command.
#
#   web                 gunicorn on $PORT (8000), $WEB_CONCURRENCY processes (2); /metrics on the same port
#   worker QUEUE...     a Celery worker consuming these queues (reminders, github, stats, imports, default), with
#                       $WORKER_CONCURRENCY processes (2); its metrics on $SIGTRACKER_METRICS_PORT (9100)
#   beat                Celery beat, the one scheduler (run exactly one), schedule file in /tmp
#   migrate             apply database migrations (the Job run before each rollout)
#   manage ARGS...      any manage.py command, e.g. `manage createsuperuser`, `manage export_data`
#
# Production settings unless DJANGO_SETTINGS_MODULE says otherwise: the image sets DEBUG=false.
set -eu
# From the application folder (/app in the image), wherever the script is called from.
cd "$(dirname "$0")/.."

export DJANGO_SETTINGS_MODULE="${DJANGO_SETTINGS_MODULE:-sigtracker.settings.prod}"
# The queues the Celery routes name; a worker asked for another would wait forever on a queue nobody fills.
KNOWN_QUEUES="${SIGTRACKER_QUEUES:-reminders github stats imports default}"

usage() {
  echo "usage: entrypoint.sh web | worker QUEUE... | beat | migrate | manage ARGS..." >&2
  echo "queues: $KNOWN_QUEUES" >&2
  exit 64
}

# prometheus-client's multiprocess mode keeps one file per process in PROMETHEUS_MULTIPROC_DIR; files of a previous
# run of this container would be added to this one's, so the directory starts empty.
metrics_dir_reset() {
  if [ -n "${PROMETHEUS_MULTIPROC_DIR:-}" ]; then
    mkdir -p "$PROMETHEUS_MULTIPROC_DIR"
    find "$PROMETHEUS_MULTIPROC_DIR" -mindepth 1 -delete
  fi
}

# Only web and workers serve metrics; the others must not need (or write to) the metrics directory.
no_metrics() {
  unset PROMETHEUS_MULTIPROC_DIR
}

command="${1:-}"
[ $# -gt 0 ] && shift
case "$command" in
  web)
    metrics_dir_reset
    exec gunicorn sigtracker.wsgi --config deploy/gunicorn.conf.py "$@"
    ;;
  worker)
    [ $# -gt 0 ] || usage
    for queue in "$@"; do
      case " $KNOWN_QUEUES " in
        *" $queue "*) ;;
        *) echo "entrypoint.sh: unknown queue '$queue'" >&2; usage ;;
      esac
    done
    queues=$(echo "$*" | tr ' ' ',')
    metrics_dir_reset
    export SIGTRACKER_METRICS_PORT="${SIGTRACKER_METRICS_PORT:-9100}"
    exec celery -A sigtracker worker --queues "$queues" --hostname "$(echo "$queues" | tr ',' '-')@%h" \
      --concurrency "${WORKER_CONCURRENCY:-2}" --loglevel "${LOG_LEVEL:-INFO}" --without-mingle --without-gossip
    ;;
  beat)
    no_metrics
    exec celery -A sigtracker beat --schedule "${BEAT_SCHEDULE_FILE:-/tmp/celerybeat-schedule}" \
      --loglevel "${LOG_LEVEL:-INFO}"
    ;;
  migrate)
    no_metrics
    exec python manage.py migrate --noinput
    ;;
  manage)
    [ $# -gt 0 ] || usage
    no_metrics
    exec python manage.py "$@"
    ;;
  *)
    usage
    ;;
esac
