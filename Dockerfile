FROM python:3.11-slim
# A regular (non-editable) install of the package, migrations and dashboard included; the
# sources are removed afterwards, so the server runs the installed copy. The build context
# holds only what these two lines copy (.dockerignore).
COPY pyproject.toml README.md /tmp/sluice/
COPY app /tmp/sluice/app
RUN pip install --no-cache-dir /tmp/sluice && rm -rf /tmp/sluice
# The server runs as a user of its own, not root, with a fixed uid and gid (10001) so that a
# volume can be handed to it. The data directory is made its own before VOLUME, so a new
# volume starts out owned by it; a volume that an earlier image (running as root) filled needs
# a chown once (docs/operations.md#running).
RUN groupadd --system --gid 10001 sluice \
    && useradd --system --uid 10001 --gid sluice --home-dir /var/lib/sluice --no-create-home \
       --shell /usr/sbin/nologin sluice \
    && mkdir -p /var/lib/sluice && chown sluice:sluice /var/lib/sluice && chmod 0700 /var/lib/sluice
ENV SLUICE_DATA_DIR=/var/lib/sluice SLUICE_HOST=0.0.0.0 SLUICE_PORT=8080
WORKDIR /var/lib/sluice
VOLUME /var/lib/sluice
USER sluice
EXPOSE 8080
# It binds 0.0.0.0, so it refuses to start while its data volume holds no API key. Create one
# in the volume first (printed once):
#   docker run --rm -v sluice-data:/var/lib/sluice IMAGE keys create --principal admin
# and run the server with -e SLUICE_SUPER_USERS=admin so that key may do everything;
# or serve without keys on a network only you reach: -e SLUICE_ALLOW_ANONYMOUS=true
# (docs/security.md). TLS: mount a certificate and key and set SLUICE_TLS_CERTFILE and
# SLUICE_TLS_KEYFILE. Another port: -e SLUICE_PORT=..., which the health check follows.
# The health check asks the server's /healthz on loopback with the image's python (the slim
# image has no curl): over HTTPS when TLS is set, without checking the certificate, whose name
# need not be 127.0.0.1; any answer but 200, or none within the timeout, is a failure.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import os, ssl, urllib.request as r; tls = bool(os.environ.get('SLUICE_TLS_CERTFILE')); c = ssl.create_default_context(); c.check_hostname = False; c.verify_mode = ssl.CERT_NONE; r.urlopen(('https' if tls else 'http') + '://127.0.0.1:' + os.environ['SLUICE_PORT'] + '/healthz', timeout=4, context=c if tls else None)"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["sluice-server"]
CMD ["serve"]
